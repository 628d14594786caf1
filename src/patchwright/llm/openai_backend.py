"""The OpenAI protocol through the official ``openai`` SDK: OpenAI itself and every
compatible server (Ollama, LM Studio, vLLM, llama.cpp server, OpenRouter, Gemini,
DeepSeek, Groq). Always streams; native tool calls where the model has them, the text
protocol otherwise (and automatically when a server rejects ``tools``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from patchwright.llm.chat_backend import ChatBackend, Streamed
from patchwright.llm.errors import ProviderError
from patchwright.llm.sdk_errors import translated
from patchwright.llm.types import (
    Message,
    OnToken,
    ToolCall,
    Usage,
    close_stream,
    feed,
    parse_arguments,
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


class OpenAIModel(ChatBackend):
    """One model on one OpenAI-protocol endpoint with one key."""

    _client: Any = None

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

    def _body(
        self, msgs: Sequence[Message], max_tokens: int | None, temperature: float | None
    ) -> dict[str, Any]:
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
        return params

    def _stream(self, body: dict[str, Any], on_token: OnToken | None) -> Streamed:
        hint = self.provider.start_hint.format(model=self.model)
        with translated(provider=self.name, base_url=self.base_url, start_hint=hint):
            return self._consume(self.client().chat.completions.create(**body), on_token)

    def _consume(self, stream: Any, on_token: OnToken | None) -> Streamed:
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
                    if not feed(on_token, delta.content):
                        close_stream(stream)
                        return "".join(parts), [], "stop", usage
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
