"""Choosing the isolation layer around a command.

Preferred: bubblewrap (``bwrap``; its command line is built in ``bwrap``) — read-only root,
writable repo and private TMPDIR, the real HOME, ``/tmp`` and ``/run`` hidden, ``.git``
read-only, host sockets refused, no network unless allowed, its own pid namespace.
Fallback: ``unshare -n`` (network, and a pid namespace where permitted). Last resort: none,
said plainly. Each probe runs once per process and is cached.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["bwrap", "unshare", "none"]
Requested = Literal["auto", "bwrap", "unshare", "none"]


@dataclass(frozen=True)
class Isolation:
    """What is in force: ``mode``, whether network and filesystem are confined, and why."""

    mode: Mode
    network: bool
    filesystem: bool
    notes: tuple[str, ...] = field(default=())
    pid_namespace: bool = False

    def describe(self) -> str:
        """One plain sentence, e.g. for ``Sandbox.isolation`` and the model."""
        if self.mode == "bwrap":
            text = (
                "bwrap (bubblewrap): read-only root and .git, writable repo and private TMPDIR,"
                " real HOME, /tmp and /run hidden, host sockets refused"
            )
            text += ", network off" if self.network else ", network allowed"
        elif self.mode == "unshare":
            net = "network off" if self.network else "network allowed"
            pids = ", own pid namespace" if self.pid_namespace else ""
            text = f"unshare: {net}{pids}; the filesystem is NOT confined"
        else:
            text = "none: network isolation is unavailable and the filesystem is NOT confined"
        return text + "".join(f" ({note})" for note in self.notes)


def _works(argv: Sequence[str]) -> str | None:
    """None when ``argv`` runs and exits 0; otherwise the reason it does not."""
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=15, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{argv[0]} failed: {exc}"
    if proc.returncode != 0:
        return f"{argv[0]} exited {proc.returncode}: {proc.stderr.decode(errors='replace')[:200]}"
    return None


@functools.cache
def bwrap_problem() -> str | None:
    """None when bubblewrap is installed and works here; otherwise why not."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bwrap not installed (Debian package 'bubblewrap')"
    return _works(
        [
            *(exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net"),
            *("--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"),
            *("--", "true"),
        ]
    )


_PID_NS = ("-p", "-f", "--kill-child", "--mount-proc")
# sh as the namespace's init: the command runs as its child (an init ignores signals it
# has no handler for, which would defeat rlimit signals); stdin is passed on explicitly
# because a background job's stdin would otherwise be /dev/null.
_INIT = 'exec 3<&0; "$@" <&3 3<&- & wait $!'


@functools.cache
def unshare_flags() -> tuple[str, ...] | str:
    """The ``unshare`` flags that work here: a private network plus, where permitted, a pid
    namespace (so nothing outlives the command); ``-r`` (a user namespace) when not
    privileged. A string saying why not when none works."""
    if shutil.which("unshare") is None:
        return "unshare not installed"
    problems = []
    for flags in (("-n", *_PID_NS), ("-r", "-n", *_PID_NS), ("-n",), ("-r", "-n")):
        problem = _works(["unshare", *flags, "--", "true"])
        if problem is None:
            return flags
        problems.append(problem)
    return "; ".join(problems)


def choose(requested: Requested, allow_net: bool) -> Isolation:
    """Pick the strongest working layer (or the requested one, if it works)."""
    notes: list[str] = []
    if requested in ("auto", "bwrap"):
        problem = bwrap_problem()
        if problem is None:
            return Isolation("bwrap", not allow_net, True, pid_namespace=True)
        notes.append(problem)
    if requested in ("auto", "bwrap", "unshare"):
        flags = unshare_flags()
        if not isinstance(flags, str):
            pids = "-p" in flags
            return Isolation("unshare", not allow_net, False, tuple(notes), pid_namespace=pids)
        notes.append(flags)
    return Isolation("none", network=False, filesystem=False, notes=tuple(notes))


def unshare_argv(argv: Sequence[str], *, allow_net: bool) -> list[str]:
    """``unshare`` around ``argv``: no network (unless allowed) and its own pid namespace
    where permitted; ``argv`` unchanged when there is nothing to add."""
    flags = unshare_flags()
    if isinstance(flags, str):
        return list(argv)
    chosen = [f for f in flags if not (allow_net and f == "-n")]
    if "-p" not in chosen:
        return ["unshare", *chosen, "--", *argv] if "-n" in chosen else list(argv)
    return ["unshare", *chosen, "--", "/bin/sh", "-c", _INIT, "patchwright-init", *argv]
