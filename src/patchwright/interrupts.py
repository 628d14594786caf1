"""Stop requests (Ctrl-C, SIGTERM) that cannot be lost.

Python delivers a signal by raising from its handler at whatever bytecode runs next. When
that is a finaliser, a weakref callback or an at-fork hook (``logging`` registers one, and
every ``subprocess`` launch with ``preexec_fn`` runs it), the interpreter prints
"Exception ignored in …" and carries on: the ``KeyboardInterrupt`` is gone and a run that
was told to stop would finish and commit. So the handler also *records* the request, and
the run calls :func:`check` at the points where going on would be irreversible (before a
change is kept, before a commit): a swallowed interrupt is raised again there.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from typing import Any

_requested: str | None = None
_held = 0


def requested() -> str | None:
    """Why a stop was requested ("signal SIGTERM"; "" for Ctrl-C), or None."""
    return _requested


def request(reason: str) -> None:
    """Record a stop request; the next :func:`check` raises ``KeyboardInterrupt(reason)``."""
    global _requested
    _requested = reason


def clear() -> None:
    global _requested
    _requested = None


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a stop was requested, even one whose exception was lost."""
    if _requested is not None:
        raise _interrupt(_requested)


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
def stop_on_signals() -> Iterator[None]:
    """While inside: SIGTERM and SIGINT raise ``KeyboardInterrupt`` *and* record the request.

    An inherited ignored SIGINT (a background job) stays ignored. Outside the main thread,
    where handlers cannot be installed, signals are left alone.
    """
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
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        clear()
