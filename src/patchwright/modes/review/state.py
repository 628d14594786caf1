"""The review loop's live state, built from its events: what the dashboard and scripts read.

Every event updates a JSON-ready snapshot — iteration, phase, target and why, the cascade
queue, the proposal and its diff, the gate results, the pending checkpoint, the outcomes so
far, MEMORY.md, HISTORY.md and the token/cost usage — and is then handed to the watchers
(the dashboard's server-sent-event streams), with the snapshot's version.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any

from patchwright.events import Event

Watcher = Callable[[Event, int], None]
MAX_TEXT = 20000  # characters of MEMORY.md / HISTORY.md kept in the snapshot (newest)
MAX_LOG = 60


def _initial() -> dict[str, Any]:
    return {
        "run_id": "", "model": "", "focus": "", "started": time.time(), "running": True,
        "iteration": 0, "limit": 0, "phase": "starting", "target": None, "runners_up": [],
        "queue": [], "findings": {"total": 0, "failing_tests": 0}, "proposal": None,
        "gates": [], "checkpoint": None, "outcomes": [], "memory": "", "history": "",
        "usage": {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0},
        "log": [], "summary": None,
    }  # fmt: skip


class ReviewState:
    """Thread-safe snapshot of a review run (see the module docstring). ``read_file`` reads
    the review's memory files by name (MEMORY.md, HISTORY.md)."""

    def __init__(self, read_file: Callable[[str], str] = lambda name: "") -> None:
        self._read = read_file
        self._lock = threading.Lock()
        self._data = _initial()
        self._version = 0
        self._watchers: list[Watcher] = []

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {**copy.deepcopy(self._data), "version": self._version}

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        with self._lock:
            self._watchers.append(watcher)

        def stop() -> None:
            with self._lock:
                if watcher in self._watchers:
                    self._watchers.remove(watcher)

        return stop

    def on_event(self, event: Event) -> None:
        """A bus listener: apply the event, then tell the watchers."""
        with self._lock:
            self._apply(event.kind, dict(event.data))
            log = self._data["log"]
            log.append({**_brief(event.data), "event": event.kind, "ts": round(event.ts, 3)})
            del log[:-MAX_LOG]
            self._version += 1
            version, watchers = self._version, list(self._watchers)
        for watcher in watchers:
            try:
                watcher(event, version)
            except Exception:  # a closed stream must not stop the loop
                continue

    def _apply(self, kind: str, d: dict[str, Any]) -> None:
        s = self._data
        if kind == "review.start":
            s.update(run_id=d.get("run_id", ""), model=d.get("model", ""),
                     focus=d.get("focus", ""), limit=d.get("iterations", 0))  # fmt: skip
            s["memory"], s["history"] = self._text("MEMORY.md"), self._text("HISTORY.md")
        elif kind == "review.phase":
            s["phase"] = d.get("phase", s["phase"])
        elif kind == "review.iteration":
            s.update(iteration=d.get("iteration", 0), target=None, proposal=None, gates=[],
                     runners_up=[])  # fmt: skip
        elif kind == "review.findings":
            s["findings"] = {"total": d.get("total", 0), "failing_tests": d.get("failing_tests", 0)}
        elif kind == "review.target":
            s["target"] = {k: d.get(k) for k in ("path", "score", "reasons", "cascade")}
            s["runners_up"], s["queue"] = d.get("runners_up", []), d.get("queue", s["queue"])
        elif kind == "review.cascade":
            s["queue"] = d.get("queue", [])
        elif kind == "review.proposal":
            s["proposal"] = {k: d.get(k) for k in ("target", "proposal", "rationale", "diff")}
        elif kind == "model.request":
            s["phase"] = f"asking the model ({d.get('phase', '')})"
        elif kind == "txn.write":
            s["gates"], s["phase"] = [], "verifying"
        elif kind == "gate.result":
            s["gates"].append({k: d.get(k) for k in ("gate", "status", "new_problems",
                                                     "seconds", "reason")})  # fmt: skip
        elif kind == "review.checkpoint":
            s["checkpoint"], s["phase"] = d, "waiting at the checkpoint"
        elif kind == "review.checkpoint.resolved":
            s["checkpoint"] = None
        elif kind == "review.outcome":
            keep = ("iteration", "status", "proposal", "target", "commit", "rationale", "reason")
            s["outcomes"].append({k: d.get(k) for k in keep})
        elif kind == "review.memory":
            s["memory"] = self._text("MEMORY.md")
        elif kind == "review.history":
            s["history"] = self._text("HISTORY.md")
        elif kind == "review.usage":
            s["usage"] = d
        elif kind == "review.end":
            s.update(running=False, phase="ended", checkpoint=None, queue=d.get("cascade_left", []),
                     summary={k: d.get(k) for k in ("outcome", "reason", "iterations")})  # fmt: skip

    def _text(self, name: str) -> str:
        text = self._read(name)
        return text[-MAX_TEXT:]


def _brief(data: dict[str, Any]) -> dict[str, Any]:
    """Small scalar fields of an event, for the dashboard's log."""
    out = {}
    for key, value in data.items():
        if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) < 120):
            out[key] = value
    return out
