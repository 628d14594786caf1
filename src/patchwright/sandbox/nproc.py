"""The process cap of a user who is not root and has no pids cgroup: ``RLIMIT_NPROC``.

The kernel counts every task (thread) of the user, system-wide, so a run is given the user's
count when it starts plus the cap. A fork past that fails with EAGAIN, and a command that
retries (a fork bomb) then sits at the limit, never over it, until its timeout. So the cap
counts as hit once the user's tasks have been at the limit for a moment (two checks in a row,
a tenth of a second apart) — whoever started them, since from then on every fork of the run
is refused. (Counting the run's own tasks against the cap is not enough: the supervisor's own
threads, started after the count, take their share of the same limit.)
"""

from __future__ import annotations

import contextlib
import os
import resource
import time
from pathlib import Path

_EVERY = 0.1
_SUSTAINED = 2


def user_task_count(uid: int) -> int:
    """Tasks (threads) owned by ``uid`` now: ``RLIMIT_NPROC`` counts these system-wide."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += sum(1 for _ in (entry / "task").iterdir())
    return count


class NprocCap:
    """``cap`` more tasks than the user has now, as an rlimit, and whether it was reached."""

    def __init__(self, cap: int) -> None:
        self.uid = os.geteuid()
        self.allowed = user_task_count(self.uid) + cap
        self._next_check = 0.0
        self._at_limit = 0

    def rlimit(self) -> tuple[int, int, int]:
        return (resource.RLIMIT_NPROC, self.allowed, self.allowed)

    def hit(self) -> bool:
        """The user's tasks have sat at the limit (checked at most every ``_EVERY`` s)."""
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + _EVERY
            at_limit = user_task_count(self.uid) >= self.allowed
            self._at_limit = self._at_limit + 1 if at_limit else 0
        return self._at_limit >= _SUSTAINED
