"""Chat sessions on disk: ``.patchwright/sessions/<id>/transcript.jsonl`` and ``meta.json``.

The transcript is one JSON object per line, appended and flushed as things happen (a crash
loses nothing): what the user typed, the model's answers, each task's outcome and diff,
command outputs, files read, compactions. ``patchwright chat --resume [ID]`` replays it.
Everything written passes through the secret redactor.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchwright.llm import redact


def sessions_dir(root: Path) -> Path:
    return root / ".patchwright" / "sessions"


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


class SessionNotFound(Exception):
    """``--resume ID`` named no session (or an ambiguous prefix)."""


@dataclass(frozen=True)
class SessionInfo:
    id: str
    dir: Path
    title: str
    model: str
    updated: float


class SessionStore:
    """One chat session's folder: append entries, read them back."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.id = session_id
        self.dir = sessions_dir(root) / session_id
        self.transcript = self.dir / "transcript.jsonl"
        self._unsaved: dict[str, Any] = {}  # meta of a session not on disk yet

    @classmethod
    def create(cls, root: Path, *, model: str) -> SessionStore:
        """A new session; its folder appears with its first entry (a chat opened and left
        at once leaves nothing behind)."""
        store = cls(root, new_session_id())
        store._unsaved = {"model": model, "created": time.time(), "title": ""}
        return store

    @classmethod
    def open(cls, root: Path, session_id: str | None) -> SessionStore:
        """The session ``session_id`` (a unique prefix will do), or the newest one."""
        found = list_sessions(root)
        if session_id:
            found = [s for s in found if s.id.startswith(session_id)]
        else:  # the newest one that holds a conversation
            found = [s for s in found if (s.dir / "transcript.jsonl").is_file()] or found
        if not found:
            what = f"session {session_id!r}" if session_id else "any session"
            raise SessionNotFound(
                f"no record of {what} under {sessions_dir(root)}; start a new one with "
                "`patchwright chat` (/sessions in a chat lists them)"
            )
        if session_id and len(found) > 1:
            ids = ", ".join(s.id for s in found[:5])
            raise SessionNotFound(f"{session_id!r} matches several sessions ({ids}); give more")
        return cls(root, found[0].id)

    def meta(self) -> dict[str, Any]:
        try:
            data = json.loads((self.dir / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def write_meta(self, **fields: Any) -> None:
        if not self.dir.is_dir():
            self._unsaved.update(fields)
            return
        data = {**self.meta(), **fields}
        tmp = self.dir / "meta.json.tmp"
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        os.replace(tmp, self.dir / "meta.json")

    def append(self, kind: str, **data: Any) -> None:
        """Record one entry (``kind``: user, assistant, task, command, file, context,
        compaction, plan)."""
        if not self.dir.is_dir():
            self.dir.mkdir(parents=True, exist_ok=True)
            self.write_meta(**self._unsaved)
        entry = {"kind": kind, "ts": round(time.time(), 3), **data}
        line = redact(json.dumps(entry, ensure_ascii=False, default=str))
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
        if kind == "user" and not self.meta().get("title"):
            self.write_meta(title=str(data.get("text", ""))[:80])

    def entries(self) -> Iterator[dict[str, Any]]:
        """The transcript's entries in order; a line a crash cut short is skipped."""
        try:
            lines = self.transcript.read_text(encoding="utf-8").splitlines()
        except OSError:
            return
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("kind"), str):
                yield entry


def list_sessions(root: Path) -> list[SessionInfo]:
    """Every session of the repository, newest first."""
    base = sessions_dir(root)
    if not base.is_dir():
        return []
    found = []
    for folder in base.iterdir():
        if not folder.is_dir():
            continue
        meta = SessionStore(root, folder.name).meta()
        transcript = folder / "transcript.jsonl"
        updated = transcript.stat().st_mtime if transcript.exists() else folder.stat().st_mtime
        title = str(meta.get("title") or "(empty)")
        found.append(SessionInfo(folder.name, folder, title, str(meta.get("model", "")), updated))
    return sorted(found, key=lambda s: (s.updated, s.id), reverse=True)
