"""The run record under ``.patchwright/runs/<run-id>/``: ``events.jsonl`` appended as things
happen, ``trajectory.json`` rewritten after every step, ``summary.json`` at the end.
Everything written passes through a redactor so secrets never reach the disk."""

from __future__ import annotations

import json
import os
import secrets
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from patchwright.events import Event

Redactor = Callable[[str], str]


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def runs_dir(root: Path) -> Path:
    return root / ".patchwright" / "runs"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class RunRecord:
    """Writes one run's events, trajectory and summary."""

    def __init__(
        self, root: Path, run_id: str | None = None, redact: Redactor = str,
        *, within: Path | None = None,
    ) -> None:  # fmt: skip
        self.root = root
        self.run_id = run_id or new_run_id()
        self.dir = (within or runs_dir(root)) / self.run_id
        self.dir.mkdir(parents=True, exist_ok=True)
        self._redact = redact
        self._events = self.dir / "events.jsonl"

    def child(self) -> RunRecord:
        """The record of a task run inside this one (a review's proposal): its own events,
        trajectory and summary, under this run's ``tasks/``."""
        return RunRecord(self.root, redact=self._redact, within=self.dir / "tasks")

    def on_event(self, event: Event) -> None:
        with self._events.open("a", encoding="utf-8") as handle:
            handle.write(self._redact(event.to_json()) + "\n")

    def write_trajectory(
        self, messages: Sequence[Mapping[str, object]], actions: Sequence[Mapping[str, object]]
    ) -> None:
        data = {"run_id": self.run_id, "messages": list(messages), "actions": list(actions)}
        body = json.dumps(data, indent=1)
        _write_atomic(self.dir / "trajectory.json", self._redact(body))

    def write_crash(self, exc: BaseException) -> Path:
        """The traceback of a crash, for whoever reports it (``crash.txt``)."""
        path = self.dir / "crash.txt"
        text = "".join(traceback.format_exception(exc))
        _write_atomic(path, self._redact(text))
        return path

    def crash_reason(self, exc: BaseException) -> str:
        """What a crash says in a summary, its traceback kept (:meth:`write_crash`)."""
        return f"{type(exc).__name__}: {exc} (traceback: {self.write_crash(exc)})"

    def write_summary(self, summary: dict[str, Any]) -> None:
        body = json.dumps(summary, indent=2, default=str)
        _write_atomic(self.dir / "summary.json", self._redact(body))


def find_run(root: Path, run_id: str | None = None) -> Path | None:
    """The directory of run ``run_id`` (a unique prefix will do), or of the newest run."""
    base = runs_dir(root)
    if not base.is_dir():
        return None
    runs = sorted(p for p in base.iterdir() if p.is_dir())
    if run_id is None:
        return runs[-1] if runs else None
    matches = [p for p in runs if p.name.startswith(run_id)]
    return matches[0] if len(matches) == 1 else None
