"""What a test run found: each test's outcome, and the run as a whole (the runners in
:mod:`patchwright.verify.testrun` and :mod:`patchwright.verify.runners` fill it)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Literal

TestOutcome = Literal["passed", "failed", "error", "skipped"]


@dataclass(frozen=True)
class TestCase:
    """One test's outcome. ``message`` is the assertion line; ``detail`` the traceback tail."""

    __test__ = False  # not a pytest class

    id: str
    outcome: TestOutcome
    path: str = ""
    line: int | None = None
    message: str = ""
    detail: str = ""
    inline: bool = False  # the test lives in the code's own file (Rust #[cfg(test)], doc tests)


@dataclass
class TestRun:
    """A whole run: per-test cases when the runner reports them, the exit code, the output.

    ``problem`` is set when the run itself broke (timed out, blocked, no report written,
    runner missing) — then the cases cannot be trusted. ``missing_tool`` says why the
    command never started (not found, not executable, pytest not installed), ``blocked``
    which sandbox rule refused to start it.
    """

    __test__ = False  # not a pytest class

    command: str
    exit_code: int | None
    output: str
    cases: dict[str, TestCase] = field(default_factory=dict)
    per_test: bool = False
    problem: str | None = None
    missing_tool: str | None = None
    blocked: str | None = None
    runner: str = ""  # the runner whose report was read ("pytest", "jest", "go", ...)
    note: str = ""  # why no per-test outcomes could be had from a known runner

    @property
    def failing(self) -> frozenset[str]:
        return frozenset(i for i, c in self.cases.items() if c.outcome in ("failed", "error"))

    @property
    def passing(self) -> frozenset[str]:
        return frozenset(i for i, c in self.cases.items() if c.outcome == "passed")

    @property
    def green(self) -> bool:
        """The run completed and reported success (exit 0, or pytest's 5: no tests)."""
        return self.problem is None and (self.exit_code == 0 or self.collected_nothing)

    @property
    def collected_nothing(self) -> bool:
        """pytest found no test to run (its exit code 5; for another runner 5 is a failure)."""
        return self.exit_code == 5 and not self.cases and is_pytest(self.command)

    @property
    def only_import_errors(self) -> bool:
        """Every test module failed to import and no test ran (pytest's "collection failure"
        for each, an import error in each): the suite tested nothing — often an interpreter
        that lacks the project. A module whose own code fails as it is collected (a checking
        function called at module level that asserts) is a failing test, not this."""
        return bool(self.cases) and all(
            c.outcome == "error"
            and c.message.startswith("collection failure")
            and _IMPORT_ERROR.search(f"{c.message}\n{c.detail}") is not None
            for c in self.cases.values()
        )

    @property
    def cannot_start(self) -> str | None:
        """Why the command could not start at all (then nothing it says can be judged)."""
        if self.missing_tool:
            return self.missing_tool
        return f"the sandbox blocked it ({self.blocked})" if self.blocked else None


_IMPORT_ERROR = re.compile(r"\b(ImportError|ModuleNotFoundError|No module named)\b")


def is_pytest(cmd: str) -> bool:
    try:
        words = shlex.split(cmd)
    except ValueError:
        return False
    return any(w == "pytest" or w.endswith("/pytest") or w == "py.test" for w in words)
