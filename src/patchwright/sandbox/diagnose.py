"""Telling the truth about denials: which sandbox rule a failure came from, if any.

A model that sees ``Read-only file system`` may conclude that a tool is broken; the
result's ``blocked_by`` says instead that the sandbox refused, and which part of it.
"""

from __future__ import annotations

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
)
_FILE_SIZE = ("File too large", "File size limit exceeded", "EFBIG")
_CPU = ("CPU time limit exceeded",)
_MEMORY = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
_MISSING = ("No such file or directory", "ENOENT", "FileNotFoundError")


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
) -> str | None:
    """The sandbox rule that most likely denied the command, or None.

    Only failures are examined, and only denials this sandbox can cause are reported
    (``network`` only when the network is off, ``read-only-path`` only when the
    filesystem is confined), so an ordinary failure is never blamed on the sandbox.
    """
    if killed_by in ("cpu-limit", "file-size-limit", "process-limit"):
        return killed_by
    if process_limit_hit:
        return "process-limit"
    if exit_code == 0 or killed_by == "timeout":
        return None
    if _has(stderr, _FILE_SIZE):
        return "file-size-limit"
    if _has(stderr, _CPU):
        return "cpu-limit"
    if filesystem_confined and _has(stderr, _READ_ONLY):
        return "read-only-path"
    if network_off and _has(stderr, _NETWORK):
        return "network"
    if hidden and _has(stderr, _MISSING) and any(str(p) in stderr for p in hidden):
        return "hidden-path"
    if _has(stderr, _MEMORY):
        return "memory-limit"
    return None


EXPLANATIONS = {
    "read-only-path": "writes outside the repository and $TMPDIR are refused (read-only)",
    "network": "network access is off in this sandbox (allow it with --allow-net)",
    "hidden-path": "the real home directory is hidden; HOME is a private empty directory",
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
