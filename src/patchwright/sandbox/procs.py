"""Finding and killing every process that belongs to one sandboxed run.

A run's processes are found several ways, so that a grandchild which changed its process
group or session is still caught: the run's pids cgroup (where one is in use), the process
group and session of the leader, the pid namespace bubblewrap made for it, and the run's
token in a process's environment (inherited unless deliberately cleared).

Bubblewrap's outer process exits as soon as the command does, while its init (pid 1 of the
run's namespace) lives on until ``--die-with-parent`` kills it, and the namespace's other
processes die only when it has: for a moment, a grandchild that left the session and cleared
its environment still runs after the leader is gone. So the init is adopted from bubblewrap's
``--info-fd`` report, killed with the rest, and waited for: once it is gone, the kernel has
killed everything in its namespace.

Reading another process's ``environ`` takes that process's memory lock and can block while
it forks, so the token is only checked in full sweeps (never by the watchdog), and only for
processes started after the leader and not in uninterruptible sleep.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

_PROC = Path("/proc")


@dataclass(frozen=True)
class _Stat:
    ppid: int
    pgrp: int
    session: int
    state: bytes
    start: int


def _stat(pid: int) -> _Stat | None:
    """Parsed ``/proc/<pid>/stat``; None if the process is gone or a zombie."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return _Stat(int(fields[1]), int(fields[2]), int(fields[3]), fields[0], int(fields[19]))


def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(_PROC / str(pid) / "ns" / "pid")
    except OSError:
        return None


def _pids() -> list[int]:
    return [int(e.name) for e in _PROC.iterdir() if e.name.isdigit()]


class RunTracker:
    """The processes of one run, started with process-group (and session) leader ``leader``."""

    def __init__(self, leader: int, token_var: str, token: str, cgroup: Path | None) -> None:
        self.leader = leader
        self.cgroup = cgroup
        self._needle = f"{token_var}={token}\0".encode()
        leader_stat = _stat(leader)
        self._leader_start = leader_stat.start if leader_stat else 0
        self._own_ns = _pid_ns(os.getpid())
        self._sandbox_ns: str | None = None
        self._init: tuple[int, int] | None = None  # bubblewrap's init: (pid, start time)
        self._me = os.getpid()

    def adopt(self, info: bytes) -> bool:
        """Take bubblewrap's ``--info-fd`` report (``child-pid``: its init, ``pid-namespace``):
        the init is a member until it is gone. False when the report says nothing usable."""
        try:
            report = json.loads(info)
            pid = int(report["child-pid"])
            ns = report.get("pid-namespace")
        except (ValueError, KeyError, TypeError, AttributeError):
            return False
        stat = _stat(pid)
        if stat is None or stat.start < self._leader_start:
            return False  # gone already, and its namespace with it (or not ours)
        self._init = (pid, stat.start)
        if isinstance(ns, int):
            self._sandbox_ns = f"pid:[{ns}]"
        return True

    def _init_alive(self) -> int | None:
        """The adopted init's pid while it lives (not yet a zombie, and not a reused pid)."""
        if self._init is None:
            return None
        pid, start = self._init
        stat = _stat(pid)
        return pid if stat is not None and stat.start == start else None

    def _cgroup_pids(self) -> set[int]:
        if self.cgroup is None:
            return set()
        with contextlib.suppress(OSError, ValueError):
            return {int(p) for p in (self.cgroup / "cgroup.procs").read_text().split()}
        return set()

    def _is_member(self, pid: int, stat: _Stat, *, deep: bool) -> bool:
        if self.leader in (stat.pgrp, stat.session):
            return True
        if stat.start < self._leader_start:
            return False  # older than the run: never ours
        ns = _pid_ns(pid)
        if self._sandbox_ns is None and stat.ppid == self.leader and ns != self._own_ns:
            self._sandbox_ns = ns  # bubblewrap's init: its pid namespace is the sandbox
        if ns is not None and ns == self._sandbox_ns:
            return True
        if not deep or stat.state == b"D":
            return False
        try:
            return self._needle in (_PROC / str(pid) / "environ").read_bytes()
        except OSError:
            return False

    def members(self, *, deep: bool = True) -> set[int]:
        """Live pids of the run. ``deep=False`` skips the environ check (for the watchdog)."""
        found = self._cgroup_pids()
        for pid in _pids():
            if pid == self._me or pid in found:
                continue
            stat = _stat(pid)
            if stat is not None and self._is_member(pid, stat, deep=deep):
                found.add(pid)
        init = self._init_alive()
        if init is not None:
            found.add(init)  # dying, its namespace may not read; its members die after it
        found.discard(self._me)
        return {pid for pid in found if _stat(pid) is not None}

    def signal(self, sig: int, *, deep: bool = True) -> int:
        """Send ``sig`` to the leader's group and every member; return how many were found."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.leader, sig)  # atomic for the whole group, even mid-fork
        for pid in self._cgroup_pids():  # at once, before the slower scan of /proc
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        members = self.members(deep=deep)
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        return len(members)

    def kill(self, *, grace: float = 0.0) -> None:
        """SIGTERM (when ``grace`` > 0), then stop-and-kill every member until none is left.

        Members are frozen with SIGSTOP before SIGKILL so that nothing found can fork
        between being found and being killed; gives up after ~5 s (reported by caller).
        """
        if grace > 0 and self.signal(signal.SIGTERM):
            end = time.monotonic() + grace
            while time.monotonic() < end and self.members(deep=False):
                time.sleep(0.02)
        end = time.monotonic() + 5.0
        while time.monotonic() < end:
            self.signal(signal.SIGSTOP, deep=False)
            if not self.signal(signal.SIGKILL):
                return
            time.sleep(0.005)
