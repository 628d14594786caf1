"""Durable file primitives: atomic replace (temp file in the same directory, fsync, rename,
mode kept), removal, and directory fsync. POSIX only."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = [
    "atomic_write",
    "atomic_write_many",
    "fsync_dir",
    "fsync_dirs",
    "remove_file",
    "temp_path_for",
]


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


def _open_temp(path: Path, data: bytes, mode: int | None, tag: str) -> tuple[int, Path]:
    """Write ``data`` to ``path``'s temp file (not yet fsynced); return its open fd and path."""
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = os.stat(path).st_mode & 0o7777
    tmp = temp_path_for(path, tag)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode is not None:
            os.fchmod(fd, mode)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return fd, tmp


def atomic_write(
    path: Path, data: bytes, *, mode: int | None = None, tag: str = "pw", sync_dir: bool = True
) -> None:
    """Replace ``path`` with ``data`` atomically: readers see the old or the new file, never a
    mix. ``mode`` sets the permission bits; ``None`` keeps the existing file's bits (or the
    umask default for a new file). With ``sync_dir=False`` the caller fsyncs the directory."""
    atomic_write_many([(path, data, mode)], tag=tag)
    if sync_dir:
        fsync_dir(path.parent)


def atomic_write_many(
    items: Sequence[tuple[Path, bytes, int | None]], *, tag: str = "pw", workers: int = 8
) -> None:
    """Replace several files, each atomically: every temp file is written and fsynced (in
    parallel, so the filesystem can group the flushes) before the first rename. The caller
    fsyncs the directories."""
    opened: list[tuple[int, Path, Path]] = []
    try:
        for path, data, mode in items:
            fd, tmp = _open_temp(path, data, mode, tag)
            opened.append((fd, tmp, path))
        fds = [fd for fd, _, _ in opened]
        if len(fds) > 1:
            with ThreadPoolExecutor(max_workers=min(workers, len(fds))) as pool:
                list(pool.map(os.fsync, fds))
        else:
            for fd in fds:
                os.fsync(fd)
    except BaseException:
        for fd, tmp, _ in opened:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    for fd, tmp, path in opened:
        os.close(fd)
        os.replace(tmp, path)


def remove_file(path: Path, *, sync_dir: bool = True) -> bool:
    """Remove ``path`` if present; return whether something was removed."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    if sync_dir:
        fsync_dir(path.parent)
    return True
