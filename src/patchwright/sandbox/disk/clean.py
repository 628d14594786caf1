"""What a run stopped by its disk budget leaves behind: the files it created are removed.

"Created" is decided by name, not by inode: the paths in the writable areas are listed as
the run starts (in a thread, alongside the spawn), and after the stop every path that was
not there is removed — files, links, and then the directories left empty. A path that was
there stays, whatever happened to it: a file the run rewrote (``sed -i`` and formatters
replace a file by a new one) is the user's file with new content, never deleted. The
repository's git directories and ``.patchwright/`` are neither listed nor touched.

The listing races the command's first writes: a file it creates before the listing
reaches its directory counts as there before, and is left (and named) — the safe side.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from patchwright.sandbox.gitdirs import STATE_DIR, git_dirs


def kept_paths(areas: Iterable[Path]) -> frozenset[str]:
    """Paths never removed nor walked into: the git directories and patchwright's state."""
    return frozenset(str(p) for area in areas for p in [*git_dirs(area), area / STATE_DIR])


class Before:
    """The paths present under ``areas`` when a run started, listed alongside the run by
    ``find`` (off the interpreter's lock), or by a thread where there is no ``find``."""

    def __init__(self, areas: Sequence[Path], keep: frozenset[str]) -> None:
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 (closed by cancel or paths)
        self._proc: subprocess.Popen[bytes] | None = None
        self._paths: set[str] = set()
        self._cancelled = threading.Event()
        self._thread: threading.Thread | None = None
        find = shutil.which("find")
        if find is not None and areas:
            prune = [w for k in sorted(keep) for w in ("-o", "-path", _pattern(k))][1:]
            argv = [find, *map(str, areas), "(", *prune, ")", "-prune", "-o", "-print0"]
            with contextlib.suppress(OSError):
                self._proc = subprocess.Popen(argv, stdout=self._out, stderr=subprocess.DEVNULL)
        if self._proc is None:
            self._thread = threading.Thread(target=self._list, args=(areas, keep), daemon=True)
            self._thread.start()

    def _list(self, areas: Sequence[Path], keep: frozenset[str]) -> None:
        for area in areas:
            for path, _ in _entries(str(area), keep):
                if self._cancelled.is_set():
                    return
                self._paths.add(path)

    def cancel(self) -> None:
        """Stop listing: the run ended within its budget, nothing will be removed."""
        self._cancelled.set()
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
        self._out.close()

    def paths(self) -> set[str]:
        """The listing (waits for it to finish)."""
        if self._thread is not None:
            self._thread.join()
        if self._proc is not None:
            self._proc.wait()
            self._out.seek(0)
            self._paths = {os.fsdecode(p) for p in self._out.read().split(b"\0") if p}
        self._out.close()
        return self._paths


def _pattern(path: str) -> str:
    """``path`` as a ``find -path`` pattern that matches only itself."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in path)


def remove_created(areas: Sequence[Path], before: set[str], keep: frozenset[str]) -> list[str]:
    """Remove what is under ``areas`` and not in ``before``, deepest first; a directory only
    once empty. Returns the files removed (directories are not listed)."""
    removed: list[str] = []
    for area in areas:
        _clean(str(area), before, keep, removed)
    return removed


def _clean(top: str, before: set[str], keep: frozenset[str], removed: list[str]) -> bool:
    """Clean ``top``; True when ``top`` itself was created by the run and is now empty."""
    empty = True
    for path, is_dir in list(_entries(top, keep, recurse=False)):
        if is_dir:
            if _clean(path, before, keep, removed) and path not in before:
                with contextlib.suppress(OSError):
                    os.rmdir(path)
                    continue
        elif path not in before:
            with contextlib.suppress(OSError):
                os.unlink(path)
                removed.append(path)
                continue
        empty = False
    return empty


def _entries(top: str, keep: frozenset[str], recurse: bool = True) -> Iterable[tuple[str, bool]]:
    """``(path, is a directory)`` under ``top``, links not followed, ``keep`` skipped."""
    stack = [top]
    while stack:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.path in keep:
                    continue
                is_dir = False
                with contextlib.suppress(OSError):
                    is_dir = entry.is_dir(follow_symlinks=False)
                if is_dir and recurse:
                    stack.append(entry.path)
                yield entry.path, is_dir
