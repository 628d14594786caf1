"""The OpenAI protocol through the official ``openai`` SDK: OpenAI itself and every
compatible server (Ollama, LM Studio, vLLM, llama.cpp server, OpenRouter, Gemini,
DeepSeek, Groq). Always streams; native tool calls where the model has them, the text
protocol otherwise (and automatically when a server rejects ``tools``)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import ProviderError
from patchwright.llm.providers import Provider
from patchwright.llm.sdk_errors import translated
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
    parse_arguments,
    rough_token_count,
)


def wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Our messages in the OpenAI chat format."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        item: dict[str, Any] = {"role": msg["role"], "content": msg.get("content") or ""}
        if msg["role"] == "assistant" and msg.get("tool_calls"):
            calls = [ToolCall.coerce(c, i) for i, c in enumerate(msg["tool_calls"])]
            item["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                }
                for c in calls
            ]
        if msg["role"] == "tool":
            item["tool_call_id"] = msg.get("tool_call_id", "")
        out.append(item)
    return out


class OpenAIModel:
    """One model on one OpenAI-protocol endpoint with one key."""

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
        self._client: Any = None

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

    def client(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.OpenAI(
                api_key=self._key.value if self._key else "no-key",
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=0,  # the router retries, with backoff, across keys
            )
        return self._client

    def _params(
        self,
        messages: Sequence[Message],
        tools: list[ToolSpec],
        native: bool,
        max_tokens: int | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        msgs = messages if native or not tools else to_text_messages(messages, tools)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(msgs),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if max_tokens is not None:
            key = "max_completion_tokens" if self.provider.name == "openai" else "max_tokens"
            params[key] = max_tokens
        if temperature is not None:
            params["temperature"] = temperature
        if native and tools:
            params["tools"] = [{"type": "function", "function": dict(t)} for t in tools]
        return params

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_token: OnToken | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Reply:
        specs = normalize_tools(tools)
        native = self.native_tools and bool(specs)
        try:
            return self._complete(messages, specs, native, on_token, max_tokens, temperature)
        except ProviderError as exc:
            rejected_tools = exc.kind == "bad_request" and "tool" in str(exc).lower()
            if native and rejected_tools:
                self.native_tools = False  # this server cannot do tools: use the text protocol
                return self._complete(messages, specs, False, on_token, max_tokens, temperature)
            raise

    def _complete(
        self,
        messages: Sequence[Message],
        specs: list[ToolSpec],
        native: bool,
        on_token: OnToken | None,
        max_tokens: int | None,
        temperature: float | None,
    ) -> Reply:
        start = time.monotonic()
        params = self._params(messages, specs, native, max_tokens, temperature)
        hint = self.provider.start_hint.format(model=self.model)
        with translated(provider=self.name, base_url=self.base_url, start_hint=hint):
            stream = self.client().chat.completions.create(**params)
            text, calls, finish, usage = self._consume(stream, on_token)
        if not native and specs:
            text, calls = parse_tool_calls(text, [s["name"] for s in specs])
        if usage is None:  # server sent no usage: estimate it
            usage = Usage(
                messages_token_estimate(params["messages"], self.count_tokens),
                self.count_tokens(text),
            )
        return Reply(
            text=text,
            tool_calls=calls,
            usage=usage,
            cost=self.info.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens),
            seconds=time.monotonic() - start,
            model=self.name,
            finish_reason=finish,
        )

    def _consume(
        self, stream: Any, on_token: OnToken | None
    ) -> tuple[str, list[ToolCall], str | None, Usage | None]:
        parts: list[str] = []
        acc: dict[int, dict[str, str]] = {}
        finish: str | None = None
        usage: Usage | None = None
        for chunk in stream:
            if getattr(chunk, "usage", None):
                usage = _usage(chunk.usage)
            for choice in chunk.choices or ():
                delta = choice.delta
                if delta is not None and delta.content:
                    parts.append(delta.content)
                    if on_token is not None:
                        on_token(delta.content)
                for tc in (delta.tool_calls if delta is not None else None) or ():
                    slot = acc.setdefault(tc.index, {"id": "", "name": "", "args": ""})
                    slot["id"] = tc.id or slot["id"]
                    if tc.function is not None:
                        slot["name"] += tc.function.name or ""
                        slot["args"] += tc.function.arguments or ""
                if choice.finish_reason:
                    finish = choice.finish_reason
        if finish is None:
            raise ProviderError.cut_short(self.name)
        calls = [
            ToolCall(slot["id"] or f"call_{i}", slot["name"], parse_arguments(slot["args"]))
            for i, slot in sorted(acc.items())
            if slot["name"]
        ]
        return "".join(parts), calls, finish, usage


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    if cached is None:  # DeepSeek reports its cache hits under its own name
        extra = getattr(raw, "model_extra", None) or {}
        cached = extra.get("prompt_cache_hit_tokens")
    return Usage(
        prompt_tokens=int(raw.prompt_tokens or 0),
        completion_tokens=int(raw.completion_tokens or 0),
        cached_tokens=int(cached or 0),
    )
