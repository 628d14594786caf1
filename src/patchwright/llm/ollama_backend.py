"""Ollama through its native ``/api/chat`` endpoint (httpx, streamed NDJSON).

Why not the OpenAI-compatible ``/v1`` endpoint: Ollama documents that ``/v1`` cannot set
the context size per request, and its default context (2k–4k tokens) silently drops the
start of longer prompts. ``/api/chat`` honours ``options.num_ctx``, so every request
carries a ``num_ctx`` sized to its prompt + reply budget (see ``ollama_num_ctx``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from patchwright.llm.chat_backend import ChatBackend, Streamed
from patchwright.llm.errors import ModelConfigError, ProviderError
from patchwright.llm.sdk_errors import parse_retry_after, translated
from patchwright.llm.types import (
    Message,
    OnToken,
    ToolCall,
    Usage,
    feed,
    messages_token_estimate,
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


class OllamaModel(ChatBackend):
    """One model on an Ollama server."""

    @property
    def root(self) -> str:
        """The server's native root (``base_url`` without ``/v1``)."""
        return native_root(self.base_url)

    def _seed(self, body: dict[str, Any], seed: int) -> None:
        body["options"]["seed"] = seed  # Ollama's sampling settings are its options

    def _body(
        self, msgs: Sequence[Message], max_tokens: int | None, temperature: float | None
    ) -> dict[str, Any]:
        budget = max_tokens or 2048
        prompt = messages_token_estimate(msgs, self.count_tokens)
        options: dict[str, Any] = {
            "num_ctx": ollama_num_ctx(prompt, budget, self.context_window),
            "num_predict": budget,
        }
        if temperature is not None:
            options["temperature"] = temperature
        return {
            "model": self.model,
            "messages": wire_messages(msgs),
            "stream": True,
            "options": options,
        }

    def _stream(self, body: dict[str, Any], on_token: OnToken | None) -> Streamed:
        import httpx

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
            return self._consume(response.iter_lines(), on_token)

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
    ) -> tuple[str, list[ToolCall], str | None, Usage | None]:
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
                if not feed(on_token, piece):  # stopped early: the caller estimates usage
                    return "".join(parts), calls, "stop", None
            for raw in message.get("tool_calls") or ():
                calls.append(ToolCall.coerce(raw.get("function", raw), len(calls)))
            if chunk.get("done"):
                final = chunk
        if final is None:
            raise ProviderError.cut_short(self.name)
        usage = Usage(int(final.get("prompt_eval_count") or 0), int(final.get("eval_count") or 0))
        return "".join(parts), calls, final.get("done_reason") or "stop", usage
