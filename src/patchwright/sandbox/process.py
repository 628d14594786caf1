"""Spawning one command in its own session with rlimits, capturing its output, and making
sure that nothing it started outlives it (timeout, leader exit, or a limit)."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox import cgroup as cgroups
from patchwright.sandbox.capture import HeadTail
from patchwright.sandbox.disk.budget import DiskBudget, Settled
from patchwright.sandbox.disk.watch import Written
from patchwright.sandbox.envbuild import SANDBOX_TOKEN_VAR
from patchwright.sandbox.nproc import NprocCap
from patchwright.sandbox.procs import RunTracker
from patchwright.sandbox.result import Limits

_POLL = 0.05
_WATCHDOG_EVERY = 0.02
_DRAIN_AFTER_EXIT = 2.0
_INFO_WAIT = 5.0
_LIMIT_SIGNALS = {signal.SIGXCPU: "cpu-limit", signal.SIGXFSZ: "file-size-limit"}
# Without a cgroup, a user who is not root gets the process cap as RLIMIT_NPROC: a fork past it
# fails with EAGAIN and the command dies of that, often before the watchdog counts anything
# (bash: "fork: Resource temporarily unavailable"; Python: BlockingIOError from _fork_exec).
_EAGAIN = re.compile(r"Resource temporarily unavailable|\bEAGAIN\b")
_FORKING = re.compile(r"\bfork\b|_fork_exec|\bspawn\b|posix_spawn|fork/exec|\bclone\b")


@dataclass
class RawRun:
    """What the process layer observed; the runner turns it into an ``ExecResult``."""

    returncode: int | None
    stdout: HeadTail
    stderr: HeadTail
    timed_out: bool
    killed_by: str | None
    seconds: float
    process_limit_hit: bool
    disk_limit_hit: bool = False
    written: tuple[Written, ...] = ()
    removed: tuple[str, ...] = ()  # the files it created, removed after a disk-limit stop
    refused: int = 0  # the bytes of the ``fallocate`` the disk budget refused


def _rlimits(limits: Limits, nproc: NprocCap | None) -> list[tuple[int, int, int]]:
    pairs: list[tuple[int, int, int]] = []
    if limits.cpu_seconds is not None:  # soft → SIGXCPU, hard one second later → SIGKILL
        pairs.append((resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1))
    for res, value in (
        (resource.RLIMIT_AS, limits.address_space_bytes),
        (resource.RLIMIT_FSIZE, limits.file_size_bytes),
        (resource.RLIMIT_NOFILE, limits.open_files),
    ):
        if value is not None:
            pairs.append((res, value, value))
    if nproc is not None:
        pairs.append(nproc.rlimit())
    return pairs


def _preexec(
    pairs: list[tuple[int, int, int]], group: Path | None, last: Callable[[], None]
) -> Callable[[], None]:
    def apply() -> None:  # runs in the child between fork and exec: keep it minimal
        if group is not None:
            cgroups.join(group)
        for res, soft, hard in pairs:
            _, cur_hard = resource.getrlimit(res)
            if cur_hard != resource.RLIM_INFINITY:
                soft, hard = min(soft, cur_hard), min(hard, cur_hard)
            resource.setrlimit(res, (soft, hard))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        last()

    return apply


def _nothing() -> None:
    return None


def _feed(stream: object, data: bytes) -> None:
    assert hasattr(stream, "write") and hasattr(stream, "close")
    with contextlib.suppress(OSError):
        stream.write(data)
    with contextlib.suppress(OSError):
        stream.close()


class _Run:
    """State of one supervised run (kept small: the loop lives in ``_supervise``)."""

    def __init__(
        self, proc: subprocess.Popen[bytes], token: str, group: Path | None, nproc: NprocCap | None
    ) -> None:
        self.proc, self.group, self.nproc = proc, group, nproc
        self.tracker = RunTracker(proc.pid, SANDBOX_TOKEN_VAR, token, group)
        self.killed_by: str | None = None

    def kill(self, reason: str | None, grace: float = 0.0) -> None:
        if reason and self.killed_by is None:
            self.killed_by = reason
        self.tracker.kill(grace=grace)

    def watch_disk(self, disk: DiskBudget) -> Callable[[], None]:
        """Start the disk budget's watch over this run; return the function that stops it."""
        return disk.start(
            lambda: self.tracker.members(deep=False), lambda: self.kill("disk-limit"), self.suspend
        )

    def suspend(self) -> Callable[[], None]:
        """Stop every member (SIGSTOP); return the function that lets them go on."""
        self.tracker.signal(signal.SIGSTOP, deep=False)

        def resume() -> None:
            self.tracker.signal(signal.SIGCONT, deep=False)

        return resume

    def over_limit(self, cap: int | None) -> bool:
        """The process cap was hit: a fork refused by the cgroup, or too many counted."""
        if self.group is not None:
            return cgroups.limit_hit(self.group)
        if cap is None:
            return False
        if self.nproc is not None and self.nproc.hit():
            return True  # RLIMIT_NPROC refuses every fork now
        return len(self.tracker.members(deep=False)) > cap


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    token: str,
    limits: Limits,
    timeout: float,
    stdin: bytes | None = None,
    use_cgroup: bool = True,
    write_areas: Sequence[Path] = (),
) -> RawRun:
    """Run ``argv`` and supervise it until it and everything it started are gone.

    With ``limits.disk_bytes`` set, what the run writes to ``write_areas`` (and files its
    processes hold open) is held to that budget (``sandbox.disk``); past it, the run is
    stopped and the files it created there are removed."""
    group = cgroups.create(token, limits.processes) if limits.processes and use_cgroup else None
    nproc = None  # without a cgroup, a user who is not root gets the cap as RLIMIT_NPROC
    if group is None and os.geteuid() != 0 and limits.processes is not None:
        nproc = NprocCap(limits.processes)
    watchdog_cap = limits.processes if group is None else None
    disk = DiskBudget(write_areas, limits.disk_bytes) if limits.disk_bytes else None
    start = time.monotonic()
    argv, info_fds = _with_info_fd(argv)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
            pass_fds=info_fds[1:],
            preexec_fn=_preexec(
                _rlimits(limits, nproc), group, disk.child_setup if disk else _nothing
            ),
        )
    except BaseException:
        if disk is not None:
            disk.abandon()
        _close(info_fds)
        raise
    run = _Run(proc, token, group, nproc)
    if info_fds:
        os.close(info_fds[1])
        run.tracker.adopt(_read_info(info_fds[0]))
    out, err = HeadTail(limits.output_bytes), HeadTail(limits.output_bytes)
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
    stop_disk = run.watch_disk(disk) if disk is not None else _nothing
    try:
        timed_out = _supervise(run, out, err, start + timeout, limits, watchdog_cap)
    finally:
        stop_disk()
        run.kill(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        hit = group is not None and cgroups.limit_hit(group)
        if group is not None:
            cgroups.remove(group)
        disk_end = disk.settle() if disk is not None else Settled(False)  # also on Ctrl-C
    code, killed_by = _exit_status(proc.returncode, run.killed_by)
    hit = (
        hit
        or killed_by == "process-limit"
        or (nproc is not None and code != 0 and _fork_refused(err))
    )
    seconds = time.monotonic() - start
    return RawRun(
        code,
        out,
        err,
        timed_out,
        killed_by,
        seconds,
        hit,
        disk_limit_hit=disk_end.exceeded,
        written=disk_end.written,
        removed=disk_end.removed,
        refused=disk_end.refused,
    )


def _with_info_fd(argv: Sequence[str]) -> tuple[list[str], tuple[int, ...]]:
    """A bubblewrap command line gets ``--info-fd`` (its init's pid and pid namespace are
    reported there, for ``RunTracker.adopt``); returns it and the pipe (read, write)."""
    argv = list(argv)
    if not argv or Path(argv[0]).name != "bwrap":
        return argv, ()
    read, write = os.pipe()
    return [argv[0], "--info-fd", str(write), *argv[1:]], (read, write)


def _read_info(fd: int, wait: float = _INFO_WAIT) -> bytes:
    """What bubblewrap wrote to its info pipe: it closes it within milliseconds of starting,
    whatever the command does; a bubblewrap that never does is not waited for past ``wait``."""
    chunks: list[bytes] = []
    end = time.monotonic() + wait
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while (left := end - time.monotonic()) > 0 and sel.select(left):
                data = os.read(fd, 4096)
                if not data:
                    break
                chunks.append(data)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _close(fds: Sequence[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _fork_refused(err: HeadTail) -> bool:
    """The command's error output says a fork was refused for want of a process slot."""
    text = err.text()
    return bool(_EAGAIN.search(text) and _FORKING.search(text))


def _exit_status(code: int | None, we_killed: str | None) -> tuple[int | None, str | None]:
    """(exit code, killed_by): a death by signal has no exit code, but a reason."""
    killed_by = we_killed
    if code is not None and code - 128 in _LIMIT_SIGNALS:
        code = -(code - 128)  # a wrapper (bwrap, a shell) reports a signal death as 128+N
    if code is not None and code < 0:
        sig = signal.Signals(-code)
        killed_by = killed_by or _LIMIT_SIGNALS.get(sig) or f"signal:{sig.name}"
        code = None
    if we_killed is not None:
        code = None  # we killed it: a wrapper's 128+N exit status is not the command's
    return code, killed_by


def _supervise(
    run: _Run,
    out: HeadTail,
    err: HeadTail,
    deadline: float,
    limits: Limits,
    watchdog_cap: int | None,
) -> bool:
    """Pump output until EOF; enforce the deadline and the process cap. True if timed out."""
    proc = run.proc
    assert proc.stdout is not None and proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, out)
    sel.register(proc.stderr, selectors.EVENT_READ, err)
    timed_out = False
    drain_until: float | None = None
    next_watch = time.monotonic() + _WATCHDOG_EVERY
    poll = _WATCHDOG_EVERY if watchdog_cap is not None else _POLL
    try:
        while True:
            if sel.get_map():
                for key, _ in sel.select(poll):
                    data = os.read(key.fd, 65536)
                    if data:
                        key.data.add(data)
                    else:
                        sel.unregister(key.fileobj)
            elif drain_until is not None:
                break  # the leader is done and all output is read
            else:
                time.sleep(poll)  # output closed early: keep enforcing the deadline
            now = time.monotonic()
            if drain_until is None and proc.poll() is not None:
                run.kill(None)  # the leader is done: stragglers go with it
                drain_until = now + _DRAIN_AFTER_EXIT
            elif drain_until is None and now >= deadline:
                timed_out = True
                run.kill("timeout", grace=limits.kill_grace)
                drain_until = time.monotonic() + _DRAIN_AFTER_EXIT
            elif drain_until is None and now >= next_watch:
                next_watch = now + _WATCHDOG_EVERY
                if run.over_limit(watchdog_cap):
                    run.kill("process-limit")
                    drain_until = time.monotonic() + _DRAIN_AFTER_EXIT
            if drain_until is not None and now > drain_until:
                break
    finally:
        sel.close()
        for stream in (proc.stdout, proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()
    return timed_out
