"""Which files of a repository the index looks at.

Uses ``patchwright.workspace.files.list_files`` (ignore rules, size and binary caps) when
the workspace package provides it, and otherwise a small private walker over
``git ls-files`` (or the directory tree outside git) with the same caps.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 512 * 1024
_SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".patchwright",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "dist",
    "build",
    "target",
}


@dataclass(frozen=True)
class IndexFile:
    """A candidate file: posix path relative to the root, and its size in bytes."""

    path: str
    size: int


def _from_workspace(root: Path, max_file_bytes: int) -> list[IndexFile] | None:
    try:
        from patchwright.workspace.files import list_files  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    files = list_files(root, max_file_bytes=max_file_bytes)
    return [
        IndexFile(f.path, f.size)
        for f in files
        if not getattr(f, "binary", False) and not getattr(f, "too_large", False)
    ]


def _git_paths(root: Path) -> list[str] | None:
    """``git ls-files`` run hardened: the repository's config cannot make it run anything."""
    from patchwright.workspace.errors import GitError
    from patchwright.workspace.gitsafe import run_git

    args = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    try:
        proc = run_git(root, *args, timeout=60, errors="surrogateescape")
    except (OSError, subprocess.SubprocessError, GitError):
        return None
    if proc.returncode != 0:
        return None
    return sorted({p for p in proc.stdout.split("\0") if p})


def _walk_paths(root: Path) -> list[str]:
    paths: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS and not d.startswith(".")]
        rel = Path(dirpath).relative_to(root)
        paths.extend((rel / name).as_posix() for name in filenames)
    return sorted(paths)


def list_index_files(root: Path, *, max_file_bytes: int = MAX_FILE_BYTES) -> list[IndexFile]:
    """Regular, non-ignored files under ``root`` no larger than ``max_file_bytes``."""
    found = _from_workspace(root, max_file_bytes)
    if found is not None:
        return found
    paths = _git_paths(root)
    if paths is None:
        paths = _walk_paths(root)
    result = []
    for path in paths:
        if any(part in _SKIP_DIRS for part in path.split("/")[:-1]):
            continue
        try:
            st = (root / path).stat()
        except OSError:
            continue
        if not os.path.isfile(root / path) or st.st_size > max_file_bytes:
            continue
        result.append(IndexFile(path, st.st_size))
    return result
