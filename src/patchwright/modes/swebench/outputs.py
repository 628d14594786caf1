"""The predictions file: one official JSON line per instance, appended and flushed as each
finishes, so an interrupted batch resumes where it stopped (an instance already in the file
is skipped; a line torn by a crash is cut off before appending)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any


class Predictions:
    """``predictions.jsonl`` (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.done: set[str] = set()
        self.rows: list[dict[str, Any]] = []
        self._load()

    def _load(self) -> None:
        if not self.path.is_file():
            return
        data = self.path.read_bytes()
        keep = 0
        for line in data.splitlines(keepends=True):
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                break  # a torn last line: everything from here is dropped
            if not line.endswith(b"\n"):
                break
            keep += len(line)
            if isinstance(row, dict) and "instance_id" in row:
                self.rows.append(row)
                self.done.add(str(row["instance_id"]))
        if keep < len(data):
            with self.path.open("r+b") as handle:
                handle.truncate(keep)

    def add(self, row: dict[str, Any]) -> bool:
        """Append ``row`` unless its instance is already there; True when written."""
        with self._lock:
            instance_id = str(row["instance_id"])
            if instance_id in self.done:
                return False
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            self.done.add(instance_id)
            self.rows.append(row)
            return True

    def forget(self, instance_ids: set[str]) -> None:
        """Drop these instances' lines (rewritten atomically), so they run again."""
        with self._lock:
            self.rows = [r for r in self.rows if str(r["instance_id"]) not in instance_ids]
            self.done -= instance_ids
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in self.rows), encoding="utf-8")
            os.replace(tmp, self.path)


class MixedModes(RuntimeError):
    """A predictions file would hold predictions of both modes (``--oracle-tests`` or not)."""


def mode_conflict(predictions: Predictions, *, oracle: bool) -> str:
    """Why this batch must not append to ``predictions`` (empty: it may): a file's lines are
    all chosen without the hidden tests, or all with them (``"oracle_tests": true``)."""
    other = [r for r in predictions.rows if bool(r.get("oracle_tests")) != oracle]
    if not other:
        return ""
    theirs = "with the hidden tests (--oracle-tests)" if not oracle else "without hidden tests"
    return (
        f"{predictions.path} holds {len(other)} predictions chosen {theirs}; a file keeps one "
        "mode: write to another --output directory"
    )


def errored(out: Path) -> set[str]:
    """Instances whose last ``result.json`` under ``out`` is an error."""
    found = set()
    for path in out.glob("*/result.json"):
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("outcome") == "error":
                found.add(path.parent.name)
        except (OSError, json.JSONDecodeError):
            continue
    return found


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """Predictions by instance id (the last line of an id wins)."""
    return {str(r["instance_id"]): r for r in Predictions(path).rows}
