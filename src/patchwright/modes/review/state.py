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

from patchwright.events import (
    Event,
    GateResult,
    ModelRequest,
    ReviewCascade,
    ReviewCheckpoint,
    ReviewCheckpointResolved,
    ReviewEnd,
    ReviewFindings,
    ReviewHistory,
    ReviewIteration,
    ReviewMemory,
    ReviewOutcome,
    ReviewPhase,
    ReviewProposal,
    ReviewStart,
    ReviewTarget,
    ReviewUsage,
    TxnWrite,
)

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
            self._apply(event)
            log = self._data["log"]
            log.append({**_brief(event.payload()), "event": event.kind, "ts": round(event.ts, 3)})
            del log[:-MAX_LOG]
            self._version += 1
            version, watchers = self._version, list(self._watchers)
        for watcher in watchers:
            try:
                watcher(event, version)
            except Exception:  # a closed stream must not stop the loop
                continue

    def _apply(self, event: Event) -> None:
        s = self._data
        match event:
            case ReviewStart():
                s.update(run_id=event.run_id, model=event.model, focus=event.focus,
                         limit=event.iterations)  # fmt: skip
                s["memory"], s["history"] = self._text("MEMORY.md"), self._text("HISTORY.md")
            case ReviewPhase():
                s["phase"] = event.phase
            case ReviewIteration():
                s.update(iteration=event.iteration, target=None, proposal=None, gates=[],
                         runners_up=[])  # fmt: skip
            case ReviewFindings():
                s["findings"] = {"total": event.total, "failing_tests": event.failing_tests}
            case ReviewTarget():
                s["target"] = {"path": event.path, "score": event.score,
                               "reasons": event.reasons, "cascade": event.cascade}  # fmt: skip
                s["runners_up"], s["queue"] = event.runners_up, event.queue
            case ReviewCascade():
                s["queue"] = event.queue
            case ReviewProposal():
                s["proposal"] = {"target": event.target, "proposal": event.proposal,
                                 "rationale": event.rationale, "diff": event.diff}  # fmt: skip
            case ModelRequest():
                s["phase"] = f"asking the model ({event.phase})"
            case TxnWrite():
                s["gates"], s["phase"] = [], "verifying"
            case GateResult():
                s["gates"].append({"gate": event.gate, "status": event.status,
                                   "new_problems": event.new_problems, "seconds": event.seconds,
                                   "reason": event.reason})  # fmt: skip
            case ReviewCheckpoint():
                s["checkpoint"], s["phase"] = event.payload(), "waiting at the checkpoint"
            case ReviewCheckpointResolved():
                s["checkpoint"] = None
            case ReviewOutcome():
                s["outcomes"].append({
                    "iteration": event.iteration, "status": event.status,
                    "proposal": event.proposal, "target": event.target, "commit": event.commit,
                    "rationale": event.rationale, "reason": event.reason,
                })  # fmt: skip
            case ReviewMemory():
                s["memory"] = self._text("MEMORY.md")
            case ReviewHistory():
                s["history"] = self._text("HISTORY.md")
            case ReviewUsage():
                s["usage"] = event.payload()
            case ReviewEnd():
                s.update(running=False, phase="ended", checkpoint=None, queue=event.cascade_left,
                         summary={"outcome": event.outcome, "reason": event.reason,
                                  "iterations": event.iterations})  # fmt: skip

    def _text(self, name: str) -> str:
        text = self._read(name)
        return text[-MAX_TEXT:]


def _brief(data: dict[str, object]) -> dict[str, object]:
    """Small scalar fields of an event, for the dashboard's log."""
    out: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) < 120):
            out[key] = value
    return out
