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


def _stat(pid: int) -> tuple[int, int, bytes, int] | None:
    """(process group, session, state, start time) of ``pid``; None if gone or a zombie."""
    try:
        raw = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[2]), int(fields[3]), fields[0], int(fields[19])


def _stat_ids(pid: int) -> tuple[int, int] | None:
    """(process group, session) of ``pid``, or None if it is gone or a zombie."""
    stat = _stat(pid)
    return None if stat is None else (stat[0], stat[1])


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
    leader_stat = _stat(leader)
    leader_start = leader_stat[3] if leader_stat else 0
    for entry in _PROC.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == me or pid in members:
            continue
        stat = _stat(pid)
        if stat is None:
            continue
        # Reading another process's environ can block (a process in uninterruptible sleep
        # holds its memory lock), so only look at processes that could be the run's own:
        # started no earlier than the leader, and not in state D.
        maybe_ours = stat[2] != b"D" and stat[3] >= leader_start
        if leader in (stat[0], stat[1]) or (maybe_ours and _has_token(pid, needle)):
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
