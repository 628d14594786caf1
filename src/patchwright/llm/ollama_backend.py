"""Ollama through its native ``/api/chat`` endpoint (httpx, streamed NDJSON).

Why not the OpenAI-compatible ``/v1`` endpoint: Ollama documents that ``/v1`` cannot set
the context size per request, and its default context (2k–4k tokens) silently drops the
start of longer prompts. ``/api/chat`` honours ``options.num_ctx``, so every request
carries a ``num_ctx`` sized to its prompt + reply budget (see ``ollama_num_ctx``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import ModelConfigError, ProviderError
from patchwright.llm.providers import Provider
from patchwright.llm.sdk_errors import parse_retry_after, translated
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


def native_root(base_url: str) -> str:
    """``http://host:11434/v1`` → ``http://host:11434`` (presets name the /v1 URL)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for msg in messages:
        item: dict[str, Any] = {"role": msg["role"], "content": msg.get("content") or ""}
        if msg.get("tool_calls"):
            calls = [ToolCall.coerce(c, i) for i, c in enumerate(msg["tool_calls"])]
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ]
        if msg["role"] == "tool" and msg.get("name"):
            item["tool_name"] = msg["name"]
        out.append(item)
    return out


def ollama_num_ctx(prompt_tokens: int, max_tokens: int, context_window: int) -> int:
    """Context size for one Ollama request: prompt + reply budget, rounded up to a
    multiple of 4096 (at least 8192) so that Ollama does not reload the model for every
    small change. A request that cannot fit is refused instead of silently truncated."""
    need = prompt_tokens + max_tokens
    if need > context_window:
        raise ModelConfigError(
            f"the prompt (~{prompt_tokens} tokens) plus the reply budget ({max_tokens}) does "
            f"not fit the model's {context_window}-token context; shorten the prompt"
        )
    return min(context_window, max(8192, -(-need // 4096) * 4096))


class OllamaModel:
    """One model on an Ollama server."""

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
        self.root = native_root(base_url)
        self.timeout = timeout
        self.native_tools = info.tools
        self._key = api_key

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

    def _body(
        self,
        messages: Sequence[Message],
        specs: list[ToolSpec],
        native: bool,
        max_tokens: int | None,
        temperature: float | None,
    ) -> dict[str, Any]:
        msgs = messages if native or not specs else to_text_messages(messages, specs)
        budget = max_tokens or 2048
        prompt = messages_token_estimate(msgs, self.count_tokens)
        options: dict[str, Any] = {
            "num_ctx": ollama_num_ctx(prompt, budget, self.context_window),
            "num_predict": budget,
        }
        if temperature is not None:
            options["temperature"] = temperature
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(msgs),
            "stream": True,
            "options": options,
        }
        if native and specs:
            body["tools"] = [{"type": "function", "function": dict(t)} for t in specs]
        return body

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
            if native and exc.kind == "bad_request" and "tool" in str(exc).lower():
                self.native_tools = False  # e.g. "model does not support tools"
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
        import httpx

        start = time.monotonic()
        body = self._body(messages, specs, native, max_tokens, temperature)
        headers = {"authorization": f"Bearer {self._key.value}"} if self._key else {}
        hint = self.provider.start_hint.format(model=self.model)
        with (
            translated(
                provider=self.name, base_url=self.root, start_hint=hint, catch=httpx.HTTPError
            ),
            httpx.stream(
                "POST", f"{self.root}/api/chat", json=body, headers=headers, timeout=self.timeout
            ) as response,
        ):
            if response.status_code >= 400:
                raise self._status_error(response)
            text, calls, finish, usage = self._consume(response.iter_lines(), on_token)
        if not native and specs:
            text, calls = parse_tool_calls(text, [s["name"] for s in specs])
        return Reply(
            text=text,
            tool_calls=calls,
            usage=usage,
            cost=self.info.cost(usage.prompt_tokens, usage.completion_tokens),
            seconds=time.monotonic() - start,
            model=self.name,
            finish_reason=finish,
        )

    def _status_error(self, response: Any) -> ProviderError:
        response.read()
        try:
            detail = str(response.json().get("error", ""))
        except ValueError:
            detail = response.text[:300]
        status = response.status_code
        if status == 404 and "not found" in detail:
            detail += f"; fetch it with `ollama pull {self.model}`"
        kind = {429: "rate_limit", 408: "timeout", 401: "auth", 403: "auth"}.get(status)
        if kind is None:
            kind = "server" if status >= 500 else "bad_request"
        return ProviderError(
            f"{self.name} answered HTTP {status}: {detail}",
            kind=kind,  # type: ignore[arg-type]
            status=status,
            retry_after=parse_retry_after(response.headers),
            provider=self.name,
        )

    def _consume(
        self, lines: Iterator[str], on_token: OnToken | None
    ) -> tuple[str, list[ToolCall], str | None, Usage]:
        parts: list[str] = []
        calls: list[ToolCall] = []
        final: dict[str, Any] | None = None
        for line in lines:
            if not line.strip():
                continue
            chunk = json.loads(line)
            if chunk.get("error"):
                raise ProviderError(
                    f"{self.name}: {chunk['error']}", kind="server", provider=self.name
                )
            message = chunk.get("message") or {}
            piece = message.get("content") or ""
            if piece:
                parts.append(piece)
                if on_token is not None:
                    on_token(piece)
            for raw in message.get("tool_calls") or ():
                calls.append(ToolCall.coerce(raw.get("function", raw), len(calls)))
            if chunk.get("done"):
                final = chunk
        if final is None:
            raise ProviderError.cut_short(self.name)
        usage = Usage(int(final.get("prompt_eval_count") or 0), int(final.get("eval_count") or 0))
        return "".join(parts), calls, final.get("done_reason") or "stop", usage
