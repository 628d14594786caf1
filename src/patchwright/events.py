"""Typed events and the bus that carries them to listeners (run log, terminal, TUI).

Every event is a dataclass with a ``kind`` string such as ``run.start`` or
``gate.result``; :meth:`Event.to_json` gives the JSON-lines form written to
``.patchwright/runs/<run-id>/events.jsonl``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Listener = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    """Something that happened: ``kind`` names it, ``data`` carries JSON-safe details."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    ts: float = field(default_factory=time.time)

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "ts": round(self.ts, 3), **self.data}, default=str)


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

    def emit(self, kind: str, /, **data: Any) -> Event:
        event = Event(kind, data)
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
