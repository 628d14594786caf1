"""The disk budget of one run, put together: what is enforced where, and what is left.

- ``fallocate`` — half a millisecond for a gigabyte, one call no signal stops — is gated
  (:mod:`.fallocgate`): each call is judged against the budget before it takes space, one at a
  time, and one that does not fit is refused (``ENOSPC``) and stops the run.
- everything else that writes is watched (:mod:`.watch`): a fall in free space past the
  budget freezes the run, its files are counted, and it is stopped when over.
- after a stop, the files the run created are removed (:mod:`.clean`); files that were
  there before and that it changed are left, and named.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox.disk import clean as diskclean
from patchwright.sandbox.disk.fallocgate import Gate
from patchwright.sandbox.disk.watch import DiskWatch, Written, describe, human


@dataclass(frozen=True)
class Settled:
    """How a run ended against its budget: over it or not, what it wrote (as found when it
    was stopped), the files removed after it, and the request refused (bytes, 0: none)."""

    exceeded: bool
    written: tuple[Written, ...] = ()
    removed: tuple[str, ...] = ()
    refused: int = 0


class DiskBudget:
    """``budget`` bytes for what one run writes under ``areas`` (and holds open)."""

    def __init__(self, areas: Sequence[Path], budget: int) -> None:
        self.watch = DiskWatch(areas, budget)
        self._keep = diskclean.kept_paths(self.watch.areas)
        self._before = diskclean.Before(self.watch.areas, self._keep)
        self._gate = Gate.prepare()
        self._stopping = threading.Lock()
        self._stopped = False

    def child_setup(self) -> None:
        """Run in the child before it execs (installs the gate)."""
        if self._gate is not None:
            self._gate.child_setup()

    def abandon(self) -> None:
        """The child was never started."""
        self._before.cancel()
        if self._gate is not None:
            self._gate.close()

    def start(
        self,
        pids: Callable[[], Iterable[int]],
        stop_run: Callable[[], None],
        suspend: Callable[[], Callable[[], None]],
    ) -> Callable[[], None]:
        """Gate and watch the started run; ``stop_run`` (called once) when it is over
        budget. Returns the function that ends both."""

        def over() -> None:  # from either thread; returns only once the run is stopped
            with self._stopping:
                if not self._stopped:
                    self._stopped = True
                    stop_run()

        stop_gate = _nothing
        if self._gate is not None:
            stop_gate = self._gate.start(lambda size: self.watch.admit(size, pids), over)
        stop_watch = self.watch.start(pids, over, suspend)

        def stop() -> None:
            stop_gate()
            stop_watch()

        return stop

    def settle(self) -> Settled:
        """After the run is gone: over budget or not; if so, remove what it created."""
        if not self.watch.check():
            self._before.cancel()
            return Settled(False)
        written = tuple(self.watch.collect())
        removed = diskclean.remove_created(self.watch.areas, self._before.paths(), self._keep)
        return Settled(True, written, tuple(removed), self.watch.refused)


def _nothing() -> None:
    return None


def note(settled: Settled, budget: int, root: Path) -> str:
    """What the run is told: how it went past its budget, what was removed, what is left."""
    total = sum(w.bytes for w in settled.written)
    if settled.refused:
        why = (
            f"its files took {human(total)} and it asked for {human(settled.refused)} more,"
            f" past its disk budget of {human(budget)}"
        )
    else:
        why = f"its files took {human(total)}, over its disk budget of {human(budget)}"
    text = f"patchwright sandbox: stopped: {why}"
    removed = set(settled.removed)
    gone = [w for w in settled.written if w.path in removed]
    if settled.removed:
        more = len(settled.removed) - len(gone)
        named = [describe(gone, root)] if gone else []
        named += [f"{more} {'empty file' if more == 1 else 'empty files'}"] if more else []
        text += f"; removed the files it created: {', '.join(named)}"
    left = [w for w in settled.written if w.path not in removed]
    if left:
        text += f"; left on disk (they were there when it started): {describe(left, root)}"
    return text
