"""A per-run pids cgroup, used where the pids controller is writable (root on cgroup v1).

``RLIMIT_NPROC`` is not enforced for root, so a fork bomb run as root would get past it;
a pids cgroup with ``pids.max`` stops it at the kernel, and its ``cgroup.procs`` lists
every process of the run even after they change session. Where no writable pids
controller exists, the runner falls back to ``RLIMIT_NPROC`` and a counting watchdog.
"""

from __future__ import annotations

import atexit
import functools
import os
import time
from pathlib import Path

_V1_ROOT = Path("/sys/fs/cgroup/pids")


def _own_v1_path() -> Path | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3 and "pids" in parts[1].split(","):
            return _V1_ROOT / parts[2].lstrip("/")
    return None


@functools.cache
def pids_parent() -> Path | None:
    """The directory under which per-run pids cgroups can be made, or None (probed once)."""
    parent = _own_v1_path()
    if parent is None or not (parent / "cgroup.procs").exists():
        return None
    probe = parent / f"patchwright-probe-{os.getpid()}"
    try:
        probe.mkdir()
        ok = (probe / "pids.max").exists()
        probe.rmdir()
    except OSError:
        return None
    return parent if ok else None


def create(token: str, max_pids: int) -> Path | None:
    """Make the run's cgroup with ``pids.max``; None when cgroups are unavailable."""
    parent = pids_parent()
    if parent is None:
        return None
    _sweep_stale()
    path = parent / f"patchwright-{token}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(max_pids))
    except OSError:
        remove(path)
        return None
    return path


def join(path: Path) -> None:
    """Move the calling process into ``path`` (called in the child before exec)."""
    with open(path / "cgroup.procs", "w") as fh:
        fh.write(str(os.getpid()))


def limit_hit(path: Path) -> bool:
    """True when a fork was refused because ``pids.max`` was reached."""
    try:
        for line in (path / "pids.events").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "max" and int(value) > 0:
                return True
    except (OSError, ValueError):
        return False
    return False


_stale: set[Path] = set()


def remove(path: Path) -> None:
    """Remove the (emptied) cgroup, retrying briefly while the last tasks exit.

    A cgroup that is still busy is remembered and retried at the next ``create`` and at
    interpreter exit, so none is left behind.
    """
    for _ in range(25):
        try:
            path.rmdir()
            _stale.discard(path)
            return
        except FileNotFoundError:
            _stale.discard(path)
            return
        except OSError:
            time.sleep(0.02)
    _stale.add(path)


def _sweep_stale() -> None:
    for path in list(_stale):
        try:
            path.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        _stale.discard(path)


def _sweep_at_exit() -> None:
    """Orphans are reaped by init, sometimes lazily; give busy cgroups a moment to empty."""
    for _ in range(20):
        _sweep_stale()
        if not _stale:
            return
        time.sleep(0.05)


atexit.register(_sweep_at_exit)
