"""The seam between the agent and every model backend: messages in, a :class:`Reply` out.

Messages are plain JSON-safe dicts (so trajectories can be written as they are); replies
and usage are small dataclasses. Every backend, the router and the scripted model
implement the :class:`Model` protocol.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, Required, TypedDict, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]
OnToken = Callable[[str], None]


class ReplyComplete(Exception):
    """Raised by an ``on_token`` callback: the reply so far is all the caller needs (a
    whole-file reply that goes on to copy a read-only file, say). The backend stops
    generating, closes its stream and returns the text so far, finish reason ``"stop"``."""


def feed(on_token: OnToken | None, piece: str) -> bool:
    """Give ``piece`` to ``on_token``; False when the callback says the reply is complete."""
    if on_token is None:
        return True
    try:
        on_token(piece)
    except ReplyComplete:
        return False
    return True


def close_stream(stream: object) -> None:
    """Close a stream read only in part (an HTTP response, a generator), if it can be."""
    close = getattr(stream, "close", None)
    if callable(close):
        close()


class Message(TypedDict, total=False):
    """One chat message. ``tool_calls`` (assistant) holds ``ToolCall.to_dict()`` dicts;
    ``tool_call_id`` (tool) names the call a tool result answers."""

    role: Required[Role]
    content: Required[str]
    tool_calls: list[dict[str, Any]]
    tool_call_id: str
    name: str


class ToolSpec(TypedDict, total=False):
    """A tool the model may call: a name, what it does, and a JSON schema of its arguments.

    The OpenAI wrapper form ``{"type": "function", "function": {...}}`` is accepted too.
    """

    name: Required[str]
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """A call the model asked for: ``arguments`` is already parsed from JSON."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": dict(self.arguments)}

    @staticmethod
    def coerce(raw: ToolCall | Mapping[str, Any], index: int = 0) -> ToolCall:
        """Accept our own dict form, the OpenAI wire form, or a ToolCall."""
        if isinstance(raw, ToolCall):
            return raw
        fn = raw.get("function")
        name = raw.get("name") or (fn.get("name") if isinstance(fn, Mapping) else None)
        args: Any = raw.get("arguments")
        if args is None and isinstance(fn, Mapping):
            args = fn.get("arguments")
        if isinstance(args, str):
            args = parse_arguments(args)
        if not isinstance(name, str) or not name:
            raise ValueError(f"tool call without a name: {raw!r}")
        call_id = raw.get("id") or f"call_{index}"
        return ToolCall(id=str(call_id), name=name, arguments=dict(args or {}))


def parse_arguments(text: str) -> dict[str, Any]:
    """Parse tool-call arguments; text that is not a JSON object is kept under ``_raw``."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_raw": text}


@dataclass(frozen=True)
class Usage:
    """Tokens of one call (or a sum of calls). ``cached_tokens`` is the part of
    ``prompt_tokens`` served from a cache (KV prefix reuse or provider prompt cache);
    ``estimated``: the server counted none (llama.cpp's when streaming), so some of these
    are patchwright's estimate."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
            self.estimated or other.estimated,
        )

    def to_dict(self) -> dict[str, int | bool]:
        counts: dict[str, int | bool] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }
        return {**counts, "estimated": True} if self.estimated else counts


@dataclass(frozen=True)
class Reply:
    """What a model answered, with what it cost."""

    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    seconds: float = 0.0
    model: str = ""
    finish_reason: str | None = None

    def as_message(self) -> Message:
        """The assistant message to append to the conversation for the next call."""
        msg: Message = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        return msg


@dataclass(frozen=True)
class Caps:
    """Hard limits for one run; ``None`` means no limit. Checked before every call."""

    max_cost: float | None = None
    max_tokens: int | None = None
    max_calls: int | None = None


@runtime_checkable
class Model(Protocol):
    """Anything that answers a conversation. ``phase`` says what a call is for (coder,
    planner, commit-message, ...): the router names it in its ``model.request`` and
    ``model.reply`` events; a backend has no use for it. ``seed`` makes a sampled call
    repeatable: the router gives each sampled call of a task its own (a backend whose API
    takes none — Anthropic's, the scripted model — ignores it)."""

    name: str
    context_window: int

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_token: OnToken | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        phase: str = "",
        seed: int | None = None,
    ) -> Reply: ...

    def count_tokens(self, text: str) -> int: ...


def normalize_tools(tools: Sequence[ToolSpec | Mapping[str, Any]] | None) -> list[ToolSpec]:
    """Flatten tool specs to ``{"name", "description", "parameters"}``."""
    out: list[ToolSpec] = []
    for raw in tools or ():
        fn = raw.get("function") if raw.get("type") == "function" else raw
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise ValueError(f"tool spec without a name: {raw!r}")
        spec: ToolSpec = {"name": fn["name"]}
        spec["description"] = str(fn.get("description", ""))
        spec["parameters"] = dict(fn.get("parameters") or {"type": "object", "properties": {}})
        out.append(spec)
    return out


def rough_token_count(text: str) -> int:
    """A tokenizer-free estimate (about 3.5 characters per token, rounded up) used where
    the backend has no local tokenizer; biased high so budgets err on the safe side."""
    return max(1, -(-len(text) * 2 // 7)) if text else 0


def messages_token_estimate(messages: Sequence[Message], count: Callable[[str], int]) -> int:
    """Estimate a conversation's prompt tokens: content plus per-message overhead."""
    total = 0
    for msg in messages:
        total += 4 + count(msg.get("content") or "")
        for call in msg.get("tool_calls") or ():
            total += 8 + count(json.dumps(call, ensure_ascii=False))
    return total + 2
