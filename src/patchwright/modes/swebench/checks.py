"""What a candidate's trial runs to judge it — the one place the two modes differ in TNR.

* :class:`OwnTests` (the default, fair mode): the repository's own test files at the base
  commit (those that were passing before any change must still pass: ``REGRESSION``) and,
  when the agent wrote one from the issue, its reproduction test (failing before any change,
  it must now pass: ``REPRODUCTION``). Nothing of the instance's ``test_patch``,
  FAIL_TO_PASS or PASS_TO_PASS is run or read.
* :class:`HiddenTests` (``--oracle-tests`` only): the instance's FAIL_TO_PASS and
  PASS_TO_PASS with the hidden test patch applied for the run — what no leaderboard allows.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Protocol

from patchwright.envs import InstallSpec, InstanceSandbox
from patchwright.modes.swebench.grading import Grade, grade
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.localise import Signals, Suspect
from patchwright.modes.swebench.tests import run_instance_tests, run_tests

OWN = ("REPRODUCTION", "REGRESSION")  # the fair mode's names for the two lists


class Checks(Protocol):
    """How trials judge candidates."""

    @property
    def oracle(self) -> bool:
        """True when the hidden tests judge (``--oracle-tests``)."""
        ...

    @property
    def proves_fix(self) -> bool:
        """True when a test that failed before any change must pass: only then can a
        passing candidate be ``verified`` (otherwise nothing shows the issue is fixed)."""
        ...

    def run(self, env: InstanceSandbox, timeout: float) -> tuple[Grade, str | None]:
        """Run the checks on the tree as it is: the grade, and what broke the run itself."""
        ...


@dataclass(frozen=True)
class HiddenTests:
    """FAIL_TO_PASS and PASS_TO_PASS with the test patch applied (``--oracle-tests``)."""

    instance: Instance
    spec: InstallSpec
    oracle: bool = True
    proves_fix: bool = True

    def run(self, env: InstanceSandbox, timeout: float) -> tuple[Grade, str | None]:
        report = run_instance_tests(env, self.instance, self.spec, timeout=timeout)
        return report.grade(self.instance), report.problem


class Staging(Protocol):
    """Files put on disk for a test run only (the reproduction test)."""

    def staged(self, env: InstanceSandbox) -> AbstractContextManager[None]: ...


@dataclass(frozen=True)
class OwnTests:
    """The repository's own tests and the agent's reproduction test (the fair mode).

    ``command`` runs both; ``passing`` are the repository's tests that passed before any
    change, ``reproducing`` the reproduction tests that failed before it."""

    repo_name: str
    command: str
    passing: tuple[str, ...] = ()
    reproducing: tuple[str, ...] = ()
    reproduction: Staging | None = None
    oracle: bool = False

    @property
    def proves_fix(self) -> bool:
        return bool(self.reproducing)

    def run(self, env: InstanceSandbox, timeout: float) -> tuple[Grade, str | None]:
        if not self.command:
            return Grade(names=OWN), None
        staged = self.reproduction.staged(env) if self.reproduction is not None else None
        report = run_tests(env, self.repo_name, self.command, timeout=timeout, staged=staged)
        result = grade(report.status, self.reproducing, self.passing, names=OWN)
        return result, report.problem


@dataclass
class Groundwork:
    """What an instance's candidates are made from and judged by: the suspects (and the
    signals that found them), the checks, the failure shown to the model (a test that
    reproduces the issue, failing) and the agent strategy's test command."""

    suspects: list[Suspect]
    checks: Checks
    signals: Signals = field(default_factory=Signals)
    failures: str = ""
    agent_test_cmd: str | None = None
    record: dict[str, object] = field(default_factory=dict)  # what ran before any change


def failure_excerpt(log: str, chars: int = 1500) -> str:
    """The failures part of a pytest log (its tail)."""
    start = log.find("= FAILURES =")
    end = log.find("short test summary info")
    part = log[start:end] if 0 <= start < end else log
    return part[-chars:]
