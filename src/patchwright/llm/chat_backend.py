"""What the OpenAI-protocol and the Ollama backends share: their settings, the choice
between native tool calls and the text protocol (switching to the text protocol for good
when a server rejects ``tools``), and the :class:`Reply` built from a streamed answer."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import ProviderError
from patchwright.llm.providers import Provider
from patchwright.llm.secrets import ApiKey
from patchwright.llm.textproto import parse_tool_calls, to_text_messages
from patchwright.llm.types import (
    Message,
    OnToken,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    messages_token_estimate,
    normalize_tools,
    rough_token_count,
)

# What a backend read from its stream: text, tool calls, finish reason, usage (None when
# the server sent none).
Streamed = tuple[str, list[ToolCall], str | None, Usage | None]


class ChatBackend(ABC):
    """One model on one chat endpoint with one key; subclasses make the call itself."""

    def __init__(
        self,
        model: str,
        *,
        info: ModelInfo,
        provider: Provider,
        base_url: str,
        api_key: ApiKey | None,
        timeout: float,
    ) -> None:
        self.model = model
        self.name = info.spec
        self.context_window = info.context_window
        self.info = info
        self.provider = provider
        self.base_url = base_url
        self.timeout = timeout
        self.native_tools = info.tools
        self._key = api_key

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

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
        specs = normalize_tools(tools)
        native = self.native_tools and bool(specs)
        try:
            return self._complete(messages, specs, native, on_token, max_tokens, temperature, seed)
        except ProviderError as exc:
            rejected_tools = exc.kind == "bad_request" and "tool" in str(exc).lower()
            if native and rejected_tools:
                # e.g. "model does not support tools": this server gets the text protocol
                self.native_tools = False
                return self._complete(
                    messages, specs, False, on_token, max_tokens, temperature, seed
                )
            raise

    def _complete(
        self,
        messages: Sequence[Message],
        specs: list[ToolSpec],
        native: bool,
        on_token: OnToken | None,
        max_tokens: int | None,
        temperature: float | None,
        seed: int | None = None,
    ) -> Reply:
        """One call, with native tool calls or (``native`` false) the text protocol."""
        start = time.monotonic()
        msgs = messages if native or not specs else to_text_messages(messages, specs)
        body = self._body(msgs, max_tokens, temperature)
        if seed is not None:
            self._seed(body, seed)
        if native and specs:
            body["tools"] = [{"type": "function", "function": dict(t)} for t in specs]
        streamed = self._stream(body, on_token)
        return self._reply(streamed, specs, native, body["messages"], start, max_tokens)

    @abstractmethod
    def _body(
        self, msgs: Sequence[Message], max_tokens: int | None, temperature: float | None
    ) -> dict[str, Any]:
        """The request body (without ``tools``); its ``messages`` are the wire messages."""

    def _seed(self, body: dict[str, Any], seed: int) -> None:
        """The sampling seed, where the API takes it (OpenAI's and llama.cpp's servers:
        top-level ``seed``)."""
        body["seed"] = seed

    @abstractmethod
    def _stream(self, body: dict[str, Any], on_token: OnToken | None) -> Streamed:
        """Send ``body`` and read the streamed answer (errors as :class:`ProviderError`)."""

    def _reply(
        self,
        streamed: Streamed,
        specs: list[ToolSpec],
        native: bool,
        sent: Sequence[Any],
        start: float,
        max_tokens: int | None = None,
    ) -> Reply:
        """The reply to a call begun at ``start`` that sent the messages ``sent``: tool calls
        read from the text under the text protocol, usage estimated if the server gave none —
        except that a reply stopped at ``max_tokens`` is known to hold that many (llama.cpp's
        server sends no usage when streaming; Rust code at ~2 characters a token was counted
        592 tokens for a reply cut off at 1024)."""
        text, calls, finish, usage = streamed
        if not native and specs:
            text, calls = parse_tool_calls(text, [s["name"] for s in specs])
        if usage is None:
            written = self.count_tokens(text)
            if finish == "length" and max_tokens:
                written = max(written, max_tokens)
            usage = Usage(messages_token_estimate(sent, self.count_tokens), written, estimated=True)
        return Reply(
            text=text,
            tool_calls=calls,
            usage=usage,
            cost=self.info.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens),
            seconds=time.monotonic() - start,
            model=self.name,
            finish_reason=finish,
        )
