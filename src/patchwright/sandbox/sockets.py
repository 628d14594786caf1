"""Unix sockets of the host that a sandboxed command could otherwise connect to.

A path-bound unix socket is reachable through the filesystem whatever the network
namespace, so a new network namespace alone does not keep a command away from the Docker
daemon or a database. Bubblewrap hides ``/run``, ``/tmp`` and ``/var/tmp`` entirely and
mounts ``/dev/null`` over every socket found here, wherever it lives, so that a connect is
refused (``ECONNREFUSED``) and reported as ``blocked_by: network``.

Found two ways: the kernel's list of bound sockets in this network namespace
(``/proc/net/unix``) and a bounded walk of the runtime directories (``/run``), which also
finds sockets bound in other namespaces and mounted here (a container's docker.sock).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

PROC_NET_UNIX = Path("/proc/net/unix")
RUNTIME_DIRS = (Path("/run"), Path("/var/run"))
_WALK_LIMIT = 5000


def bound_paths(table: str) -> list[str]:
    """Socket paths in the text of ``/proc/net/unix`` (abstract sockets, ``@...``, skipped)."""
    found = []
    for line in table.splitlines()[1:]:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            found.append(fields[7])
    return found


def _walk_sockets(top: Path, budget: list[int]) -> Iterator[str]:
    """Socket files under ``top`` without following links, at most ``budget[0]`` entries."""
    stack = [str(top)]
    while stack and budget[0] > 0:
        with contextlib.suppress(OSError), os.scandir(stack.pop()) as entries:
            for entry in entries:
                budget[0] -= 1
                if budget[0] <= 0:
                    return
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                        yield entry.path


def host_sockets() -> list[Path]:
    """Canonical paths of the host's unix sockets that exist now (sorted, unique)."""
    candidates: list[str] = []
    with contextlib.suppress(OSError):
        candidates += bound_paths(PROC_NET_UNIX.read_text(errors="replace"))
    budget = [_WALK_LIMIT]
    for top in RUNTIME_DIRS:
        if top.is_dir() and not top.is_symlink():
            candidates += _walk_sockets(top, budget)
    found: set[Path] = set()
    for raw in candidates:
        with contextlib.suppress(OSError, ValueError):
            real = Path(os.path.realpath(raw))
            if stat.S_ISSOCK(real.stat().st_mode):
                found.add(real)
    return sorted(found)
