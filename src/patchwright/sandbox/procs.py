"""Finding and killing every process that belongs to one sandboxed run.

A run's processes are found three ways, so that a grandchild which changed its process
group or session is still caught: the process group and session of the leader, the
run's token in each process's environment (inherited unless deliberately cleared), and,
where one is in use, the run's pids cgroup.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

_PROC = Path("/proc")


def _stat_ids(pid: int) -> tuple[int, int] | None:
    """(process group, session) of ``pid``, or None if it is gone or a zombie."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if not fields or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[2]), int(fields[3])


def _has_token(pid: int, needle: bytes) -> bool:
    try:
        return needle in (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False


def run_members(leader: int, token_var: str, token: str, cgroup: Path | None = None) -> set[int]:
    """Live pids that belong to the run started with process-group leader ``leader``."""
    me = os.getpid()
    needle = f"{token_var}={token}\0".encode()
    members: set[int] = set()
    if cgroup is not None:
        with contextlib.suppress(OSError):
            members.update(int(p) for p in (cgroup / "cgroup.procs").read_text().split())
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == me or pid in members:
            continue
        ids = _stat_ids(pid)
        if ids is None:
            continue
        if leader in ids or _has_token(pid, needle):
            members.add(pid)
    members.discard(me)
    return {pid for pid in members if _stat_ids(pid) is not None}


def signal_run(
    leader: int, sig: int, token_var: str, token: str, cgroup: Path | None = None
) -> int:
    """Send ``sig`` to the leader's group and every other member; return how many got it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(leader, sig)
    members = run_members(leader, token_var, token, cgroup)
    for pid in members:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return len(members)


def kill_run(
    leader: int,
    token_var: str,
    token: str,
    cgroup: Path | None = None,
    *,
    grace: float = 0.0,
) -> None:
    """SIGTERM (when ``grace`` > 0) then SIGKILL every member until none is left (≤ ~2 s)."""
    if grace > 0 and signal_run(leader, signal.SIGTERM, token_var, token, cgroup):
        end = time.monotonic() + grace
        while time.monotonic() < end and run_members(leader, token_var, token, cgroup):
            time.sleep(0.02)
    end = time.monotonic() + 2.0
    while signal_run(leader, signal.SIGKILL, token_var, token, cgroup) and time.monotonic() < end:
        time.sleep(0.01)
