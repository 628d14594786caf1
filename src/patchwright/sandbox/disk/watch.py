"""The disk budget's accounting: how much space one command's files take, watched while
it runs.

``RLIMIT_FSIZE`` caps one file; nothing caps many (three ``fallocate -l 900M`` are 2.7 GB
in a second). The watch polls the free space of the filesystems holding the writable
areas (the repository and the private TMPDIR) — one ``statvfs`` each, every 3 ms, in its
own thread. Free space falls for everyone's writes, so a fall past the budget is then
confirmed, with the run frozen, by adding up what *this* command wrote: files in the
writable areas changed since it started, plus files its processes hold open (deleted ones
too). What the count cannot attribute to the command is someone else's (or, below zero,
space someone else freed) and is allowed for until the next count.

Writes move data at memory speed, so the freeze lands a few megabytes past the budget. A
``fallocate`` is one call that takes a gigabyte in half a millisecond, faster than any
poll: ``admit`` judges each one before it runs (:mod:`.fallocgate`). The budget is on space in
use at any moment (what fills a disk), not on bytes passed to ``write``: a file rewritten
in place counts once.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# File timestamps come from the kernel's coarse clock, which lags the real one by up to a
# tick: reading that same clock at the start attributes every later write to the run.
_CLOCK_REALTIME_COARSE = 5  # Linux's clock id; Python's time module does not name it
_EVERY = 0.003
_RECOUNT_EVERY = 0.5


@dataclass(frozen=True)
class Written:
    """One file the command wrote: where (``(deleted)`` when unlinked but open) and how much."""

    path: str
    bytes: int


def _nothing() -> None:
    return None


def _free(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bfree * st.f_frsize


def _allocated(st: os.stat_result) -> int:
    return max(st.st_blocks * 512, 0)


class DiskWatch:
    """Watches one run's writes to ``areas`` against ``budget`` bytes."""

    def __init__(self, areas: Sequence[Path], budget: int) -> None:
        self.areas = [a for a in areas if a.is_dir()]
        self.budget = budget
        self.since_ns = time.clock_gettime_ns(_CLOCK_REALTIME_COARSE)
        self._devices: dict[int, Path] = {}
        for area in self.areas:
            self._devices.setdefault(area.stat().st_dev, area)
        self._free0 = {dev: _free(path) for dev, path in self._devices.items()}
        self._others = 0  # space others took (or, below zero, freed) meanwhile, at the last count
        # at least this much is the run's: the last count plus every request admitted since —
        # the free space alone would admit past the budget while someone else frees space
        self._floor = 0
        self._next_count = time.monotonic() + _RECOUNT_EVERY
        self._lock = threading.Lock()
        self.exceeded = False
        self.written: list[Written] = []
        self.refused = 0  # the request ``admit`` turned down, in bytes

    def start(
        self,
        pids: Callable[[], Iterable[int]],
        on_exceeded: Callable[[], None],
        suspend: Callable[[], Callable[[], None]] | None = None,
    ) -> Callable[[], None]:
        """Check in a thread until stopped; call ``on_exceeded`` once, when over budget.
        Returns the function that stops the thread (and waits for it)."""
        done = threading.Event()

        def loop() -> None:
            while not done.wait(_EVERY):
                if self.check(pids, suspend):
                    on_exceeded()
                    return

        thread = threading.Thread(target=loop, name="patchwright-diskwatch", daemon=True)
        thread.start()

        def stop() -> None:
            done.set()
            thread.join()

        return stop

    def _drop(self) -> int:
        drop = 0
        for dev, path in self._devices.items():
            with contextlib.suppress(OSError):
                drop += self._free0[dev] - _free(path)
        return drop

    def check(
        self,
        pids: Callable[[], Iterable[int]] = tuple,
        suspend: Callable[[], Callable[[], None]] | None = None,
    ) -> bool:
        """True (and ``written`` filled) once the run's files take more than the budget.

        ``pids`` lists the run's live processes; it is called only to count. A fall in
        free space past the budget is confirmed at once, with the run held still by
        ``suspend`` (which returns the function that lets it go on); besides, the count
        is redone now and then (at most 5% of the time), since someone else deleting
        files at the same moment can hide the fall."""
        with self._lock:
            if self.exceeded:
                return True
            drop = self._drop()
            fell = drop - self._others > self.budget
            if not fell and time.monotonic() < self._next_count:
                return False
            resume = suspend() if fell and suspend is not None else _nothing
            total, found = self._count(drop, pids)
            if total > self.budget:
                self.exceeded, self.written = True, found
                return True
            resume()
            return False

    def admit(self, size: int, pids: Callable[[], Iterable[int]] = tuple) -> bool:
        """Whether ``size`` more bytes fit the budget; when not, the run is over it.

        The free space decides while there is room; near the budget the files are counted."""
        with self._lock:
            if self.exceeded:
                return False
            drop = self._drop()
            if max(drop - self._others, self._floor) + size <= self.budget:
                self._floor += size
                return True
            total, found = self._count(drop, pids)
            if total + size <= self.budget:
                self._floor = total + size
                return True
            self.exceeded, self.written, self.refused = True, found, size
            return False

    def _count(self, drop: int, pids: Callable[[], Iterable[int]]) -> tuple[int, list[Written]]:
        """The run's files and their total now; what the free space says beyond that is
        others' (kept, signed, until the next count)."""
        started = time.monotonic()
        found = self.collect(pids())
        self._next_count = time.monotonic() + max(_RECOUNT_EVERY, 20 * (time.monotonic() - started))
        total = sum(w.bytes for w in found)
        self._others, self._floor = drop - total, total
        return total, found

    def collect(self, pids: Iterable[int] = ()) -> list[Written]:
        """Files changed since the run started, in the areas or held open by ``pids``."""
        seen: dict[tuple[int, int], Written] = {}
        for area in self.areas:
            for path, st in _walk(area):
                self._note(seen, path, st)
        for target, st in _open_files(pids):
            self._note(seen, target, st)
        return sorted(seen.values(), key=lambda w: (-w.bytes, w.path))

    def _note(self, seen: dict[tuple[int, int], Written], path: str, st: os.stat_result) -> None:
        key = (st.st_dev, st.st_ino)
        if key in seen or max(st.st_mtime_ns, st.st_ctime_ns) < self.since_ns:
            return
        size = _allocated(st)
        if size:
            seen[key] = Written(path, size)


def _walk(top: Path) -> Iterable[tuple[str, os.stat_result]]:
    """Regular files under ``top`` (links not followed)."""
    stack = [str(top)]
    while stack:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        yield entry.path, entry.stat(follow_symlinks=False)


def _open_files(pids: Iterable[int]) -> Iterable[tuple[str, os.stat_result]]:
    """Regular files that ``pids`` hold open, with their path as each process sees it."""
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        with contextlib.suppress(OSError):
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    link = f"{fd_dir}/{fd}"
                    st = os.stat(link)
                    if stat.S_ISREG(st.st_mode):
                        yield os.readlink(link), st


def describe(written: Sequence[Written], root: Path, limit: int = 10) -> str:
    """``a.bin (900 MiB), b.bin (900 MiB), ... and 3 more`` with paths relative to ``root``."""
    parts = [f"{relative(w.path, root)} ({human(w.bytes)})" for w in written[:limit]]
    if len(written) > limit:
        parts.append(f"and {len(written) - limit} more")
    return ", ".join(parts)


def relative(path: str, root: Path) -> str:
    """``path`` relative to ``root`` when inside it, else unchanged."""
    with contextlib.suppress(ValueError):
        return str(Path(path).relative_to(root))
    return path


def human(size: int) -> str:
    """``2 GiB``, ``900 MiB``, ``12 KiB``, ``7 B``."""
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if size >= factor:
            value = size / factor
            return f"{value:.1f} {unit}".replace(".0 ", " ")
    return f"{size} B"
