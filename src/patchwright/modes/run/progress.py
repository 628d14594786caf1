"""The live status line of a run: phase, iteration, tokens streamed, tokens/s, elapsed."""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.status import Status

from patchwright.events import (
    BaselineStart,
    ContextBuilt,
    Event,
    GateResult,
    IndexProgress,
    IndexStart,
    IterationStart,
    ModelReply,
    ModelRequest,
    ToolCall,
    TxnCommit,
    TxnWrite,
)


class Progress:
    """Listens to run events and streamed tokens; renders one spinner line on stderr."""

    def __init__(self, console: Console, enabled: bool = True) -> None:
        self.console = console
        self.enabled = enabled and console.is_terminal
        self.phase = "starting"
        self.iteration = 0
        self.tokens = 0
        self._gen_tokens = 0  # of the reply being generated
        self._gen_started: float | None = None
        self._started = time.monotonic()
        self._status: Status | None = None

    def __enter__(self) -> Progress:
        if self.enabled:
            self._status = self.console.status(self._line())
            self._status.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._status is not None:
            self._status.__exit__(exc_type, exc, tb)
            self._status = None

    def _line(self) -> str:
        elapsed = time.monotonic() - self._started
        rate = ""
        if self._gen_started is not None and self._gen_tokens:
            span = max(time.monotonic() - self._gen_started, 1e-6)
            rate = f" · {self._gen_tokens / span:.1f} tok/s"
        it = f"iteration {self.iteration} · " if self.iteration else ""
        return f"[bold]{self.phase}[/] · {it}{self.tokens} tokens{rate} · {elapsed:.0f}s"

    def _refresh(self) -> None:
        if self._status is not None:
            self._status.update(self._line())

    def on_token(self, _text: str) -> None:
        if self._gen_started is None:
            self._gen_started = time.monotonic()
        self.tokens += 1
        self._gen_tokens += 1
        self._refresh()

    def on_event(self, event: Event) -> None:
        match event:
            case IterationStart():
                self.iteration = event.iteration
            case ModelRequest():
                role = event.phase in ("planner", "coder", "reviewer")
                self.phase = f"{event.phase} thinking" if role else "thinking"
                self._gen_started, self._gen_tokens = None, 0  # a new reply: its own rate
            case ModelReply():
                self.phase = "applying edits"
            case TxnWrite():
                self.phase = "verifying"
            case GateResult():
                self.phase = "verifying"
                if not self.enabled and event.status == "failed":
                    return
            case BaselineStart():
                self.phase = "taking the baseline"
            case ContextBuilt():
                self.phase = "building context"
            case IndexStart():
                self.phase = "indexing the repository"
            case IndexProgress():
                self.phase = f"indexing {event.done}/{event.total} files"
            case TxnCommit():
                self.phase = "committing"
            case ToolCall():
                self.phase = f"{event.role}: {event.tool}"
        self._refresh()
