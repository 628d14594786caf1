"""Path confinement: every path the model names must stay inside the repository."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath

from patchwright.workspace.errors import PathEscapeError

__all__ = ["PathEscapeError", "confine", "relative_to_root"]


def _check_syntax(rel: str) -> None:
    if not rel or not rel.strip():
        raise PathEscapeError("empty path: name a file inside the repository")
    if "\x00" in rel:
        raise PathEscapeError(f"path {rel!r} contains a NUL byte")
    if (
        PurePosixPath(rel).is_absolute()
        or PureWindowsPath(rel).is_absolute()
        or (PureWindowsPath(rel).drive)
    ):
        raise PathEscapeError(
            f"absolute path {rel!r} is not allowed: give a path relative to the repository root"
        )
    parts = rel.replace("\\", "/").split("/")
    if ".." in parts:
        raise PathEscapeError(
            f"path {rel!r} uses '..': give a path inside the repository, relative to its root"
        )


def confine(root: Path, rel: str) -> Path:
    """Resolve ``rel`` (relative to ``root``) to an absolute path that is inside ``root``.

    Raises :class:`PathEscapeError` for empty paths, absolute paths, any ``..`` component,
    and paths whose existing symlinks lead outside ``root`` or (Python < 3.13) loop. The
    result has symlinks resolved, so writing to it never replaces a symlink nor follows one
    out.
    """
    _check_syntax(rel)
    base = Path(root).resolve()
    try:
        target = (base / rel).resolve()
    except RuntimeError as exc:  # a symlink loop, before 3.13 (later it stays unresolved)
        raise PathEscapeError(f"path {rel!r} goes through a symlink loop") from exc
    if target != base and not target.is_relative_to(base):
        raise PathEscapeError(
            f"path {rel!r} leads outside the repository (through a symlink to {target})"
        )
    return target


def relative_to_root(root: Path, path: Path) -> str:
    """The posix path of ``path`` relative to (resolved) ``root``."""
    return Path(os.path.relpath(path, Path(root).resolve())).as_posix()
