"""The plan for one test run: the command run, its environment, and the report reader."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchwright.sandbox import ExecResult
    from patchwright.verify.testmodel import TestRun

Reader = Callable[["TestRun", "ExecResult"], None]


def _read_nothing(run: TestRun, result: ExecResult) -> None:
    return None


@dataclass
class Plan:
    """How to run one test command for per-test outcomes (see the module docstring).

    ``runner`` names the runner found ("" for none); ``reports`` is True when its report
    comes from a file the runner writes whatever a test did (a test the sandbox denied
    fails in the report while the others still count); ``output`` rebuilds what a person
    reads from the raw output (go's JSON events); ``note`` says why no per-test outcomes
    can be had, when the runner is known but its report cannot be asked for."""

    command: str
    runner: str = ""
    env: dict[str, str] = field(default_factory=dict)
    read: Reader = _read_nothing
    reports: bool = False
    output: Callable[[ExecResult], str] | None = None
    note: str = ""
