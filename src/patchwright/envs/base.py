"""The ``Environment`` protocol: where commands execute for a task."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from patchwright.sandbox import ExecResult


class EnvironmentUnavailable(RuntimeError):
    """The environment cannot be made here; the message says why and what to do."""


class Environment(Protocol):
    """Runs commands for one task: gates, tools and tests go through it, never through a
    concrete runner. ``notes`` say how it differs from what was asked for (a nearer Python,
    a skipped system package)."""

    kind: str
    notes: list[str]

    @property
    def repo(self) -> Path: ...

    def run(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = 120.0,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        stdin: str | None = None,
    ) -> ExecResult: ...

    def close(self) -> None: ...
