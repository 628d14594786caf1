"""Stop requests (Ctrl-C, SIGTERM) that cannot be lost, and cancellation tokens.

Python delivers a signal by raising from its handler at whatever bytecode runs next. When
that is a finaliser, a weakref callback or an at-fork hook (``logging`` registers one, and
every ``subprocess`` launch with ``preexec_fn`` runs it), the interpreter prints
"Exception ignored in …" and carries on: the ``KeyboardInterrupt`` is gone and a run that
was told to stop would finish and commit. So the handler also *records* the request, and
the run calls :func:`check` at the points where going on would be irreversible (before a
change is kept, before a commit): a swallowed interrupt is raised again there.

A request is recorded on a :class:`CancelToken`. A long-lived front end (the REPL, the TUI)
gives each step its own token — ``stop_on_signals(token)`` in the main thread, or
``scope(token)`` in a worker that another thread cancels — so Ctrl-C stops the step in
progress, not the session. Without a token the process-wide one is used, as before.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any


class CancelToken:
    """One step's stop request: :meth:`cancel` from any thread (or a signal handler); the
    step's next :func:`check` raises ``KeyboardInterrupt(reason)``."""

    def __init__(self) -> None:
        self._reason: str | None = None
        self._event = threading.Event()

    @property
    def reason(self) -> str | None:
        """Why the step was cancelled ("" for the user's own Ctrl-C), or None."""
        return self._reason

    @property
    def cancelled(self) -> bool:
        return self._reason is not None

    def cancel(self, reason: str = "") -> None:
        self._reason = reason
        self._event.set()

    def reset(self) -> None:
        self._reason = None
        self._event.clear()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled (True) or ``timeout`` seconds pass (False)."""
        return self._event.wait(timeout)

    def check(self) -> None:
        if self._reason is not None:
            raise _interrupt(self._reason)


_process = CancelToken()  # where a request lands when no step has a token of its own
_scoped: ContextVar[CancelToken | None] = ContextVar("patchwright_cancel_token", default=None)
_held = 0


def current() -> CancelToken:
    """The token of the step running in this thread (the process-wide one outside a scope)."""
    return _scoped.get() or _process


@contextlib.contextmanager
def scope(token: CancelToken) -> Iterator[CancelToken]:
    """Inside, :func:`check`, :func:`request` and :func:`requested` use ``token``."""
    reset = _scoped.set(token)
    try:
        yield token
    finally:
        _scoped.reset(reset)


def requested() -> str | None:
    """Why a stop was requested ("signal SIGTERM"; "" for Ctrl-C), or None."""
    return current().reason


def request(reason: str) -> None:
    """Record a stop request; the next :func:`check` raises ``KeyboardInterrupt(reason)``."""
    current().cancel(reason)


def clear() -> None:
    current().reset()


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a stop was requested, even one whose exception was lost
    (the step's own token, or the process-wide one)."""
    current().check()
    _process.check()


def _interrupt(reason: str) -> KeyboardInterrupt:
    return KeyboardInterrupt(reason) if reason else KeyboardInterrupt()


def _on_signal(signum: int, frame: object) -> None:
    # Ctrl-C is the user's own interrupt; other signals are named in the record
    reason = "" if signum == signal.SIGINT else f"signal {signal.Signals(signum).name}"
    request(reason)
    if not _held:
        raise _interrupt(reason)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A step that must not be cut in half (a git commit, finalising a transaction): a stop
    requested inside is only recorded; the next :func:`check` raises it."""
    global _held
    _held += 1
    try:
        yield
    finally:
        _held -= 1


@contextlib.contextmanager
def stop_on_signals(token: CancelToken | None = None) -> Iterator[CancelToken]:
    """While inside: SIGTERM and SIGINT raise ``KeyboardInterrupt`` *and* record the request
    (on ``token`` when given: one step of a long-lived session, which goes on afterwards and
    can read on the token what stopped the step; the process-wide request is forgotten).

    An inherited ignored SIGINT (a background job) stays ignored. Outside the main thread,
    where handlers cannot be installed, signals are left alone.
    """
    with contextlib.ExitStack() as stack:
        if token is not None:
            stack.enter_context(scope(token))
        clear()
        previous: dict[signal.Signals, Any] = {}
        try:
            for sig in (signal.SIGTERM, signal.SIGINT):
                if signal.getsignal(sig) is signal.SIG_IGN:
                    continue
                previous[sig] = signal.signal(sig, _on_signal)
        except ValueError:  # not the main thread (an embedding caller)
            previous.clear()
        try:
            yield current()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            if token is None:
                clear()
