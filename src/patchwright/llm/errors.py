"""Errors of the model layer. Every message says what happened and what to do about it."""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal[
    "rate_limit",  # 429: cool the key, try the next
    "server",  # 5xx: retry with backoff
    "timeout",  # no answer in time (408 too): retry with backoff
    "connection",  # could not connect / stream cut short: retry with backoff
    "unreachable",  # a local server is not running: do not retry, say how to start it
    "auth",  # 401/403: this key is refused; try the next key
    "bad_request",  # other 4xx: never retried
    "exhausted",  # every key and fallback is cooling or failing
]

RETRYABLE: frozenset[str] = frozenset({"server", "timeout", "connection"})


class ModelError(Exception):
    """Base class of every model-layer error."""


class ModelConfigError(ModelError):
    """The model cannot be used as configured: unknown name, missing key, missing weights,
    a prompt that does not fit. The message names the fix."""


class CapExceeded(ModelError):
    """A hard per-run cap (cost, tokens or calls) would be exceeded by the next call."""

    def __init__(self, message: str, *, cap: str, limit: float, spent: float, estimate: float):
        super().__init__(message)
        self.cap = cap
        self.limit = limit
        self.spent = spent
        self.estimate = estimate


class ProviderError(ModelError):
    """A provider call failed. ``kind`` decides what the router does next."""

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status
        self.retry_after = retry_after
        self.provider = provider

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    @classmethod
    def cut_short(cls, provider: str) -> ProviderError:
        """A streamed reply that ended before its final event (retryable: ``connection``)."""
        return cls(
            f"{provider}: the stream ended before the reply was complete",
            kind="connection",
            provider=provider,
        )


def final_error(failures: list[ProviderError]) -> ProviderError:
    """One error for the caller: the only failure as it was, a shared kind kept (so a
    server that is down still reads as 'unreachable'), else 'exhausted'."""
    if len(failures) == 1:
        return failures[0]
    kinds = {f.kind for f in failures}
    text = "; ".join(str(f) for f in failures[-6:])
    if len(kinds) == 1 and kinds <= {"unreachable", "auth", "server", "timeout"}:
        return ProviderError(f"no model could answer: {text}", kind=failures[-1].kind)
    hint = (
        " Wait for the cooldown, add keys (NAME_2, NAME_3 … env vars) or configure a "
        "fallback such as `local`."
        if "rate_limit" in kinds
        else " Configure a fallback such as `local`."
    )
    return ProviderError(f"no model could answer: {text}.{hint}", kind="exhausted")
