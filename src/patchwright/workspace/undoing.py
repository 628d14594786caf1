"""Undo: restore the state before the last N patchwright changes.

Each committed :class:`~patchwright.workspace.transaction.Transaction` left an entry under
``.patchwright/undo/`` with the old contents and the hash of what it wrote. Undo checks that
every file still holds what patchwright wrote — the same bytes and the same mode (a
``chmod`` is a user edit too) — walking the entries newest first, refuses and names the
files the user changed since — unless ``force`` — and then restores the old contents and
modes in one transaction of its own, which consumes the entries at its commit point.

Only entries patchwright can trust are offered or undone (signed with this user's journal
key, not tracked by git, every path inside the repository: see
:mod:`patchwright.workspace.journaltrust`); :func:`ignored_undo` says which others were
skipped.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from patchwright.workspace import journal as jr
from patchwright.workspace.errors import UndoConflictError, UndoError
from patchwright.workspace.recovery import recover, scan_undo
from patchwright.workspace.transaction import Change, _new_undo_transaction

__all__ = ["UndoConflictError", "UndoEntry", "UndoError", "ignored_undo", "list_undo", "undo"]


@dataclass(frozen=True)
class UndoEntry:
    """One patchwright change that can be undone."""

    id: str
    label: str
    created: float
    files: list[str]


def list_undo(root: Path) -> list[UndoEntry]:
    """The undoable changes, newest first (trusted entries only)."""
    trusted, _ = scan_undo(root)
    return [
        UndoEntry(name, manifest.label, manifest.created, [r.path for r in manifest.files])
        for name, manifest in reversed(trusted)
    ]


def ignored_undo(root: Path) -> list[str]:
    """One line per undo entry patchwright will not use, saying which and why."""
    return scan_undo(root)[1]


# A file's state for undo: None (absent), or (sha256, mode bits; None = not recorded).
State = tuple[str, int | None] | None


def _current(path: Path) -> State:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return ("<not a regular file>", None)
    return hashlib.sha256(path.read_bytes()).hexdigest(), info.st_mode & 0o7777


def _difference(current: State, expected: State) -> str | None:
    """How ``current`` differs from what patchwright left (None: it does not)."""
    if current is None or expected is None:
        if current == expected:
            return None
        return "deleted" if current is None else "created again"
    if current[0] != expected[0]:
        return "content changed"
    if expected[1] is not None and current[1] != expected[1]:
        return f"mode changed from {expected[1]:o} to {current[1]:o}"
    return None


def _plan(
    root: Path, entries: list[tuple[str, jr.Manifest]]
) -> tuple[dict[str, Change], dict[str, str]]:
    """Targets (oldest state per file) and conflicting files with how each changed,
    walking newest → oldest."""
    state: dict[str, State] = {}
    targets: dict[str, Change] = {}
    conflicts: dict[str, str] = {}
    for name, manifest in entries:
        folder = jr.undo_dir(root) / name
        for record in manifest.files:
            path = record.path
            current = state[path] if path in state else _current(root / path)
            expected: State = (record.new_sha or "", record.new_mode) if record.new_exists else None
            difference = _difference(current, expected)
            if difference is not None and path not in conflicts:
                conflicts[path] = difference
            state[path] = (record.old_sha or "", record.old_mode) if record.old_exists else None
            old = jr.read_old(folder, record) if record.old_exists else None
            targets[path] = (old, record.old_mode)
    return targets, conflicts


def undo(root: Path, n: int = 1, *, force: bool = False) -> list[str]:
    """Restore the files touched by the last ``n`` patchwright changes to their state before
    those changes; return the restored paths.

    Raises :class:`UndoError` when there are fewer than ``n`` changes, and
    :class:`UndoConflictError` (with ``.files``) when the user changed any of those files
    since patchwright wrote them — unless ``force``, which overwrites those changes.
    """
    root = Path(root).resolve()
    if n < 1:
        raise UndoError(f"N must be at least 1 (got {n})")
    recover(root)
    available = list(reversed(scan_undo(root)[0]))
    if not available:
        raise UndoError("nothing to undo: patchwright has no recorded changes in this repository")
    if n > len(available):
        raise UndoError(f"cannot undo {n} changes: only {len(available)} recorded")
    chosen = available[:n]
    names = [name for name, _manifest in chosen]
    targets, conflicts = _plan(root, chosen)
    if conflicts and not force:
        named = ", ".join(f"{path} ({how})" for path, how in sorted(conflicts.items()))
        raise UndoConflictError(
            "these files changed since patchwright wrote them, and undo would overwrite "
            f"those changes: {named}. Commit or save them elsewhere, "
            "or use --force to overwrite them.",
            sorted(conflicts),
        )
    tx = _new_undo_transaction(root, names)
    tx._stage_raw(targets)
    tx.write()
    tx.commit(f"undo {n}")
    return sorted(targets)
