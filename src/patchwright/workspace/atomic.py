"""Durable file primitives: atomic replace (temp file in the same directory, fsync, rename,
mode kept), removal, and directory fsync. POSIX only."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["atomic_write", "fsync_dir", "fsync_dirs", "remove_file", "temp_path_for"]


def temp_path_for(path: Path, tag: str) -> Path:
    """The temp file used while replacing ``path``; deterministic so recovery can remove it."""
    return path.with_name(f".{path.name}.{tag}.pwtmp")


def fsync_dir(directory: Path) -> None:
    """Make renames and unlinks inside ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dirs(directories: Iterable[Path]) -> None:
    """fsync each distinct existing directory once."""
    for directory in sorted(set(directories)):
        if directory.is_dir():
            fsync_dir(directory)


def atomic_write(
    path: Path, data: bytes, *, mode: int | None = None, tag: str = "pw", sync_dir: bool = True
) -> None:
    """Replace ``path`` with ``data`` atomically: readers see the old or the new file, never a
    mix. ``mode`` sets the permission bits; ``None`` keeps the existing file's bits (or the
    umask default for a new file). With ``sync_dir=False`` the caller fsyncs the directory."""
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = os.stat(path).st_mode & 0o7777
    tmp = temp_path_for(path, tag)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync_dir:
        fsync_dir(path.parent)


def remove_file(path: Path, *, sync_dir: bool = True) -> bool:
    """Remove ``path`` if present; return whether something was removed."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    if sync_dir:
        fsync_dir(path.parent)
    return True
