"""Which journals and undo entries recovery and undo may act on.

A repository's ``.patchwright/`` is data someone else may have written: a cloned
repository can ship ``journal/<id>/manifest.json``, a command can plant one. Recovery runs
at every start with no prompt, so before a journal or undo entry is acted on it must be:

- a real folder, not a symbolic link, and not tracked by git (a tracked one came with
  the repository; no crash here left it);
- signed with this user's journal key (:mod:`patchwright.workspace.journalkey`);
- confined: every file and created folder it names resolves (symlinks included) inside
  the repository and outside ``.git/`` and ``.patchwright/``, and every undo entry it
  consumes is a plain entry of ``.patchwright/undo/``.

Anything else raises :class:`UntrustedJournalError` with the reason; callers report it and
leave the folder as it is.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from patchwright.workspace import journal as jr
from patchwright.workspace import journalkey
from patchwright.workspace.errors import (
    GitError,
    JournalKeyError,
    PathEscapeError,
    UntrustedJournalError,
)
from patchwright.workspace.gitsafe import run_git
from patchwright.workspace.paths import confine

__all__ = [
    "Verifier",
    "check_consumes",
    "check_paths",
    "redirected_state_dir",
    "tracked_state",
]

_NOT_EDITABLE = frozenset({".git", jr.STATE_DIR})
_STATE_AREAS = (f"{jr.STATE_DIR}/journal", f"{jr.STATE_DIR}/undo")


def tracked_state(root: Path) -> frozenset[str]:
    """Paths under ``.patchwright/journal`` and ``.patchwright/undo`` that git tracks in the
    repository around ``root`` (relative to ``root``; empty outside a repository)."""
    try:
        proc = run_git(root, "ls-files", "-z", "--", *_STATE_AREAS, timeout=30, errors="replace")
    except (OSError, GitError, subprocess.SubprocessError):
        return frozenset()
    if proc.returncode != 0:
        return frozenset()
    return frozenset(p for p in proc.stdout.split("\0") if p)


def redirected_state_dir(root: Path) -> Path | None:
    """``.patchwright/``, ``journal/`` or ``undo/`` when one of them is a symlink (or sits
    under one): journals seen through it are another folder's, not this repository's."""
    for folder in (jr.state_dir(root), jr.journal_dir(root), jr.undo_dir(root)):
        if os.path.lexists(folder) and folder.resolve() != folder:
            return folder
    return None


def check_paths(root: Path, manifest: jr.Manifest) -> None:
    """Refuse a manifest naming a file or folder outside ``root`` or inside ``.git/`` or
    ``.patchwright/`` (absolute, ``..``, through a symlink)."""
    for rel in [record.path for record in manifest.files] + list(manifest.created_dirs):
        if not isinstance(rel, str):
            raise UntrustedJournalError(f"it names {rel!r}, which is not a path")
        try:
            target = confine(root, rel)
        except PathEscapeError as exc:
            raise UntrustedJournalError(
                f"it names {rel!r}, a path outside the repository ({exc})"
            ) from None
        if target == root or _NOT_EDITABLE & set(target.relative_to(root).parts):
            raise UntrustedJournalError(
                f"it names {rel!r}, inside .git/ or .patchwright/, which patchwright never edits"
            )


def check_consumes(root: Path, manifest: jr.Manifest) -> None:
    """Refuse an undo transaction whose consumed entries are not plain entries of
    ``.patchwright/undo/`` (a nested, absolute, ``..`` or symlinked name)."""
    undo_dir = jr.undo_dir(root)
    base = undo_dir.resolve()
    for name in manifest.consumes:
        plain = isinstance(name, str) and name == Path(name).name and not name.startswith(".")
        if not plain or "\\" in name or (undo_dir / name).resolve().parent != base:
            raise UntrustedJournalError(
                f"it names {name!r} as an undo entry to delete, a path outside {jr.STATE_DIR}/undo"
            )


class Verifier:
    """Checks the folders under one repository's ``.patchwright/``; the key and the list of
    tracked files are read once, on first need."""

    def __init__(self, root: Path, *, check_git: bool = True) -> None:
        self.root = Path(root).resolve()
        self._check_git = check_git
        self._tracked: frozenset[str] | None = None
        self._key: bytes | None = None
        self._key_problem: str | None = None
        self._key_loaded = False

    def screen(self, folder: Path) -> None:
        """Refuse a folder that is a symlink or that git tracks (or holds tracked files)."""
        if folder.is_symlink():
            raise UntrustedJournalError("it is a symbolic link, never one of patchwright's")
        if folder.parent.resolve() != folder.parent:
            raise UntrustedJournalError(
                f"{self.relative(folder.parent)} is a symbolic link (to "
                f"{folder.parent.resolve()}): patchwright keeps its journals in a real folder"
            )
        if not self._check_git:
            return
        if self._tracked is None:
            self._tracked = tracked_state(self.root)
        rel = self.relative(folder)
        if any(
            t == rel or t.startswith(rel + "/") or rel.startswith(t + "/") for t in self._tracked
        ):
            raise UntrustedJournalError(
                "git tracks it: it came with the repository, no patchwright run here left it"
            )

    def manifest(self, folder: Path) -> jr.Manifest:
        """The folder's manifest, screened, signature-checked and confined."""
        self.screen(folder)
        manifest = jr.read_manifest(folder, self.key())
        if manifest is None:
            raise UntrustedJournalError(f"it has no {jr.MANIFEST}")
        check_paths(self.root, manifest)
        check_consumes(self.root, manifest)
        return manifest

    def key(self) -> bytes | None:
        """This user's journal key (None: none yet); a key that cannot be used makes every
        journal untrusted, with that reason."""
        if not self._key_loaded:
            try:
                self._key = journalkey.load_key(create=False)
            except (JournalKeyError, OSError) as exc:
                self._key_problem = str(exc)
            self._key_loaded = True
        if self._key_problem is not None:
            raise UntrustedJournalError(self._key_problem)
        return self._key

    def relative(self, folder: Path) -> str:
        try:
            return folder.relative_to(self.root).as_posix()
        except ValueError:
            return str(folder)

    def ignored(self, folder: Path, why: UntrustedJournalError) -> str:
        """The human line for a folder left alone."""
        return f"ignored {self.relative(folder)}: {why}; left in place, nothing it names touched"
