"""Telling the truth about denials: which sandbox rule a failure came from, if any.

A model that sees ``Read-only file system`` may conclude that a tool is broken; the
result's ``blocked_by`` says instead that the sandbox refused, and which part of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

_READ_ONLY = ("Read-only file system", "EROFS")
_NETWORK = (
    "Network is unreachable",
    "ENETUNREACH",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo failed",
    "Connection refused",
    "ECONNREFUSED",
    "Couldn't connect to server",
    "Failed to connect to",
)
# exit statuses that mean "could not reach the host" when the tool's message was silenced
_NETWORK_EXITS = {"curl": frozenset({5, 6, 7}), "wget": frozenset({4})}
_FILE_SIZE = ("File too large", "File size limit exceeded", "EFBIG")
_CPU = ("CPU time limit exceeded",)
_MEMORY = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
_MISSING = ("No such file or directory", "ENOENT", "FileNotFoundError")
_DENIED = ("Permission denied", "EACCES", "PermissionError")


def _has(text: str, needles: Sequence[str]) -> bool:
    return any(n in text for n in needles)


def blocked_by(
    *,
    stderr: str,
    exit_code: int | None,
    killed_by: str | None,
    process_limit_hit: bool,
    network_off: bool,
    filesystem_confined: bool,
    hidden: Sequence[Path] = (),
    exposed: Sequence[Path] = (),
    cwd: Path | None = None,
    programs: Sequence[str] = (),
    disk_limit_hit: bool = False,
    masked: Sequence[Path] = (),
) -> str | None:
    """The sandbox rule that most likely denied the command, or None.

    Only denials this sandbox can cause are reported (``network`` only when the network is
    off, ``read-only-path`` only when the filesystem is confined, ``hidden-path`` only for
    a path the host has but the sandbox hides), so an ordinary failure is never blamed on
    the sandbox. A write refused by the read-only root is reported even when the command
    exits 0 (tools such as Perl's ``rmtree`` warn and carry on).
    """
    if killed_by in ("cpu-limit", "file-size-limit", "process-limit", "disk-limit"):
        return killed_by
    if disk_limit_hit:
        return "disk-limit"
    if process_limit_hit:
        return "process-limit"
    if killed_by == "timeout":
        return None
    read_only = filesystem_confined and _has(stderr, _READ_ONLY)
    if exit_code == 0:
        return "read-only-path" if read_only else None
    if _has(stderr, _FILE_SIZE):
        return "file-size-limit"
    if _has(stderr, _CPU):
        return "cpu-limit"
    if read_only:
        return "read-only-path"
    if network_off and (_has(stderr, _NETWORK) or _network_exit(programs, exit_code)):
        return "network"
    if hidden and _mentions_hidden(stderr, hidden, exposed, cwd):
        return "hidden-path"
    if masked and _mentions_masked(stderr, masked, cwd):
        return "hidden-path"
    if _has(stderr, _MEMORY):
        return "memory-limit"
    return None


def _network_exit(programs: Sequence[str], exit_code: int | None) -> bool:
    return any(exit_code in _NETWORK_EXITS.get(name, ()) for name in programs)


_QUOTED = re.compile(r"""['"‘’`]([^'"‘’`\n]+)['"‘’`]""")
_ABSOLUTE = re.compile(r"(?:^|[\s:=(\[])(/[^\s'\":,)\]]+)")


def _candidates(line: str) -> list[str]:
    """Paths a "No such file" line may be about: quoted, absolute, or between colons."""
    found = _QUOTED.findall(line) + _ABSOLUTE.findall(line)
    found += [part.strip() for part in line.split(": ")[1:-1]]
    return [f for f in found if f and len(f) < 4096]


def _mentions_hidden(
    stderr: str, hidden: Sequence[Path], exposed: Sequence[Path], cwd: Path | None
) -> bool:
    """A "No such file" line names a path the host has (or has the directory of) that
    lies in a hidden area and is not shown inside the sandbox."""
    for line in stderr.splitlines():
        if not _has(line, _MISSING):
            continue
        for raw in _candidates(line):
            if not raw.startswith("/") and cwd is None:
                continue
            path = Path(os.path.realpath(cwd / raw if cwd is not None else raw))
            inside = any(path == h or h in path.parents for h in hidden)
            shown = any(path == e or e in path.parents for e in exposed)
            if inside and not shown and (path.exists() or path.parent.exists()):
                return True
    return False


def _mentions_masked(stderr: str, masked: Sequence[Path], cwd: Path | None) -> bool:
    """A "No such file" or "Permission denied" line names a secret the sandbox covers."""
    for line in stderr.splitlines():
        if not _has(line, (*_MISSING, *_DENIED)):
            continue
        for raw in _candidates(line):
            if not raw.startswith("/") and cwd is None:
                continue
            path = Path(os.path.realpath(cwd / raw if cwd is not None else raw))
            if any(path == m or m in path.parents for m in masked):
                return True
    return False


EXPLANATIONS = {
    "read-only-path": "writes outside the repository and $TMPDIR are refused (read-only)",
    "network": "network access is off in this sandbox (allow it with --allow-net)",
    "hidden-path": (
        "the real home directory is hidden, as are /tmp and /run and every secret (keys, "
        "tokens, shell histories); HOME and TMPDIR are private"
    ),
    "disk-limit": "the command's files took more than its disk budget; it was stopped",
    "process-limit": "the process-count limit was reached",
    "file-size-limit": "the file-size limit was reached",
    "cpu-limit": "the CPU-time limit was reached",
    "memory-limit": "the address-space limit was reached",
}


def explain(rule: str) -> str:
    """A one-line note for stderr, so the reader knows the sandbox refused."""
    if rule.startswith("policy:"):
        return f"patchwright sandbox: refused by policy rule {rule[7:]!r}"
    return f"patchwright sandbox: {EXPLANATIONS.get(rule, rule)} [{rule}]"
