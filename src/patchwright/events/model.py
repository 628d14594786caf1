"""The events of model calls, emitted by the router (``patchwright.llm.router``) for every
call, whoever made it: ``phase`` is what the caller said the call was for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from patchwright.events.base import Event


@dataclass(frozen=True, kw_only=True)
class ModelRequest(Event):
    """A call begins: ``messages`` in the conversation sent."""

    kind: ClassVar[str] = "model.request"
    phase: str
    messages: int


@dataclass(frozen=True, kw_only=True)
class ModelReply(Event):
    """A call answered: its usage and cost, the tools it called, its wall time (retries and
    waits included) and the model of the chain that answered."""

    kind: ClassVar[str] = "model.reply"
    phase: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float
    seconds: float
    tool_calls: list[str]
    estimated: bool = False  # the server counted no tokens: these are patchwright's estimate


@dataclass(frozen=True, kw_only=True)
class ModelRetry(Event):
    """A transient failure (timeout, 5xx, connection), retried after a backoff."""

    kind: ClassVar[str] = "model.retry"
    model: str
    attempt: int
    error: str


@dataclass(frozen=True, kw_only=True)
class ModelKeyCooled(Event):
    """A key got a 429: it rests ``seconds`` and the next key is used."""

    kind: ClassVar[str] = "model.key_cooled"
    model: str
    key: str
    seconds: float


@dataclass(frozen=True, kw_only=True)
class ModelKeyRefused(Event):
    """A key was refused (401/403): it is not used again."""

    kind: ClassVar[str] = "model.key_refused"
    model: str
    key: str


@dataclass(frozen=True, kw_only=True)
class ModelFallback(Event):
    """A model of the chain gave up; the next one is asked."""

    kind: ClassVar[str] = "model.fallback"
    model: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class ModelWait(Event):
    """Every key is cooling: the router sleeps until the first is usable again."""

    kind: ClassVar[str] = "model.wait"
    seconds: float
