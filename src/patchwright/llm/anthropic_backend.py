"""Anthropic through the official ``anthropic`` SDK, streaming, with prompt caching.

Cache breakpoints (``cache_control: ephemeral``) go on the system prompt and on the last
message, so the next call of a growing conversation reads everything before its new
turn from the cache (billed at the cached rate and reported as ``cached_tokens``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import ProviderError
from patchwright.llm.sdk_errors import translated
from patchwright.llm.secrets import ApiKey
from patchwright.llm.types import (
    Message,
    OnToken,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    close_stream,
    feed,
    normalize_tools,
    parse_arguments,
    rough_token_count,
)

_CACHE = {"type": "ephemeral"}


def wire_messages(messages: Sequence[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(system blocks, messages) in Anthropic's format, with cache breakpoints set."""
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        role, content = msg["role"], msg.get("content") or ""
        if role == "system":
            system.append({"type": "text", "text": content})
            continue
        blocks: list[dict[str, Any]] = []
        if role == "tool":
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": msg.get("tool_call_id", ""),
                    "content": content,
                }
            )
            role = "user"
        else:
            if content:
                blocks.append({"type": "text", "text": content})
            for i, raw in enumerate(msg.get("tool_calls") or ()):
                call = ToolCall.coerce(raw, i)
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                )
        if out and out[-1]["role"] == role:  # Anthropic wants alternating roles
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if system:
        system[-1]["cache_control"] = _CACHE
    if out and out[-1]["content"]:
        out[-1]["content"][-1]["cache_control"] = _CACHE
    return system, out


class AnthropicModel:
    """One Anthropic model with one key."""

    def __init__(
        self,
        model: str,
        *,
        info: ModelInfo,
        api_key: ApiKey | None,
        timeout: float,
        base_url: str | None = None,
    ) -> None:
        self.model = model
        self.name = info.spec
        self.context_window = info.context_window
        self.info = info
        self.timeout = timeout
        self.base_url = base_url
        self._key = api_key
        self._client: Any = None

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

    def client(self) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self._key.value if self._key else None,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,
            )
        return self._client

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
    ) -> Reply:
        start = time.monotonic()
        system, msgs = wire_messages(messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": msgs,
            "max_tokens": max_tokens or 4096,
            "stream": True,
        }
        if system:
            params["system"] = system
        if temperature is not None:  # only where the catalog says the endpoint takes one
            params["extra_body"] = {"temperature": temperature}
        specs = normalize_tools(tools)
        if specs:
            params["tools"] = [
                {
                    "name": t["name"],
                    "description": t.get("description", ""),
                    "input_schema": t.get("parameters", {}),
                }
                for t in specs
            ]
        with translated(provider=self.name, base_url=self.base_url or "api.anthropic.com"):
            text, calls, finish, usage, written = self._consume(
                self.client().messages.create(**params), on_token
            )
        cost = self.info.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
        write_price = (
            self.info.cache_write if self.info.cache_write is not None else self.info.input
        )
        cost += written * (write_price - self.info.input) / 1_000_000
        return Reply(text, calls, usage, cost, time.monotonic() - start, self.name, finish)

    def _consume(
        self, stream: Any, on_token: OnToken | None
    ) -> tuple[str, list[ToolCall], str | None, Usage, int]:
        parts: list[str] = []
        tools: dict[int, dict[str, str]] = {}
        finish: str | None = None
        fresh = read = written = output = 0
        for event in stream:
            kind = event.type
            if kind == "message_start":
                u = event.message.usage
                fresh = u.input_tokens or 0
                read = u.cache_read_input_tokens or 0
                written = u.cache_creation_input_tokens or 0
                output = u.output_tokens or 0
            elif kind == "content_block_start" and event.content_block.type == "tool_use":
                block = event.content_block
                tools[event.index] = {"id": block.id, "name": block.name, "args": ""}
            elif kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    parts.append(delta.text)
                    if not feed(on_token, delta.text):
                        close_stream(stream)
                        finish = "stop"
                        output = output or self.count_tokens("".join(parts))
                        break
                elif delta.type == "input_json_delta" and event.index in tools:
                    tools[event.index]["args"] += delta.partial_json
            elif kind == "message_delta":
                finish = event.delta.stop_reason or finish
                output = event.usage.output_tokens or output
        if finish is None:
            raise ProviderError.cut_short(self.name)
        calls = [
            ToolCall(t["id"], t["name"], parse_arguments(t["args"]))
            for _, t in sorted(tools.items())
        ]
        usage = Usage(
            prompt_tokens=fresh + read + written, completion_tokens=output, cached_tokens=read
        )
        return "".join(parts), calls, finish, usage, written
