"""What running a command produced (`ExecResult`) and the resource limits it ran under."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_DISK_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class Limits:
    """Per-command resource limits. ``None`` leaves that resource unlimited.

    ``processes`` caps how many processes the command may have alive at once (a pids
    cgroup where one is writable, otherwise ``RLIMIT_NPROC`` plus a watchdog that counts
    the command's processes, since the kernel ignores ``RLIMIT_NPROC`` for root).
    ``output_bytes`` caps what is kept of each of stdout and stderr (head + tail).
    ``kill_grace`` is how long a timed-out command gets between SIGTERM and SIGKILL.
    ``disk_bytes`` is the disk budget: how much space the files the command writes (in the
    repository, its private TMPDIR, or held open) may take together; a ``fallocate`` past it
    is refused and a write past it is caught, the command is stopped
    (``blocked_by: disk-limit``) and the files it created are removed. ``file_size_bytes``
    (``RLIMIT_FSIZE``) caps one file; by default it is as large as the default budget.
    """

    cpu_seconds: int | None = 600
    address_space_bytes: int | None = 8 * 1024**3
    file_size_bytes: int | None = DEFAULT_DISK_BYTES
    processes: int | None = 512
    open_files: int | None = 1024
    output_bytes: int = 256 * 1024
    kill_grace: float = 1.0
    disk_bytes: int | None = DEFAULT_DISK_BYTES

    def __post_init__(self) -> None:
        names = ("cpu_seconds", "address_space_bytes", "file_size_bytes", "processes", "disk_bytes")
        for name in names:
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"Limits.{name} must be positive or None, got {value}")
        if self.open_files is not None and self.open_files < 16:
            raise ValueError(f"Limits.open_files must be at least 16, got {self.open_files}")
        if self.output_bytes < 64:
            raise ValueError(f"Limits.output_bytes must be at least 64, got {self.output_bytes}")
        if self.kill_grace < 0:
            raise ValueError(f"Limits.kill_grace must not be negative, got {self.kill_grace}")


@dataclass(frozen=True)
class ExecResult:
    """The outcome of one sandboxed command.

    ``exit_code`` is ``None`` when the command never ran (refused by policy) or was
    killed by a signal; ``killed_by`` then says why (``"timeout"``, ``"cpu-limit"``,
    ``"file-size-limit"``, ``"process-limit"``, ``"signal:SIGSEGV"``...).
    ``blocked_by`` names what the sandbox denied (``"policy:sudo"``, ``"network"``,
    ``"read-only-path"``, ``"hidden-path"``, ``"process-limit"``, ``"disk-limit"``...) so
    that the model is told the truth instead of guessing that a tool is broken.
    ``written`` lists the files (relative to the repository where inside it) a command
    stopped by its disk budget had written, and ``removed`` those of its files that were
    removed after it because it created them (the others were there before and are left);
    neither is part of ``to_json`` (the stderr note names them).
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    blocked_by: str | None = None
    truncated: bool = False
    seconds: float = 0.0
    killed_by: str | None = None
    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the command ran to completion and exited 0."""
        return self.exit_code == 0 and not self.timed_out

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict."""
        return asdict(self)

    def to_json(self) -> str:
        """The public JSON shape of ``patchwright exec --json`` (no ``killed_by``)."""
        data = self.to_dict()
        data.pop("killed_by")
        data.pop("written")
        data.pop("removed")
        data["seconds"] = round(self.seconds, 3)
        return json.dumps(data)
