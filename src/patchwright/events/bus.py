"""The bus that carries events to listeners (run record, terminal, TUI, dashboard)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from patchwright.events.base import Event, Listener

E = TypeVar("E", bound=Event)


class EventBus:
    """Fan-out of events to listeners; a failing listener never breaks the run."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add ``listener``; returns the call that removes it again (a long-lived session's
        bus outlives each task's run record)."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: E, /) -> E:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a broken listener must not stop the agent
                continue
        return event


class JsonlWriter:
    """Appends each event as one JSON line, flushed at once so a crash loses nothing."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = event.to_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
