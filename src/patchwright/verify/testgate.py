"""The tests gate: run the suite in the sandbox and compare each test with the baseline.

Fails on tests that fail now but did not at baseline time (including new tests that fail)
and reports baseline failures that now pass as fixed. A suite whose runner gives no
per-test outcomes is judged by exit code; when it was already failing at baseline time
the gate cannot tell new failures apart and passes *with that reason stated*.

A test command that cannot start (not found, not executable, pytest not installed, refused by
the sandbox), or a run that was already broken before the change (timed out, pytest's
internal or usage error) and still is, makes the gate ``could_not_run``: no verdict, never a
pass. A run the change broke fails the gate. A baseline whose command could not start (a
checkout exported without its ``node_modules``) compares with nothing: every failure counts
as new, never "already failing". pytest's exit 5 (no tests collected) skips the
gate when the baseline collected none either, and fails it when tests ran before. A run in
which every test module failed to import and no test ran (``No module named …``: an
interpreter without the project) is ``could_not_run`` too — before and after the change
alike it tested nothing, so "no new failure" would be a pass for a tool that did not run.
"""

from __future__ import annotations

import time

from patchwright.verify.context import GateContext
from patchwright.verify.detect import detect_test_command
from patchwright.verify.model import GateResult, Problem, Status
from patchwright.verify.testrun import TestCase, TestRun, run_tests
from patchwright.verify.tools import said, tail

NAME = "tests"


def _first_error(run: TestRun) -> str:
    """The import error the run's output names first (``No module named 'x'``)."""
    found = next((x for x in run.output.splitlines() if x.startswith("E ")), "")
    return found.removeprefix("E").strip() or "no error line"


def case_problem(case: TestCase) -> Problem:
    detail = "\n".join(x for x in (case.message, case.detail) if x)
    return Problem(NAME, case.path, case.line, case.outcome, case.id, detail)


def _run_problem(run: TestRun, what: str) -> Problem:
    return Problem(NAME, "", None, "run", what, tail(run.output, 25, 2500))


class TestsGate:
    """Runs the detected (or configured) test command; see the module docstring."""

    name = NAME
    __test__ = False  # not a pytest class

    def run(self, ctx: GateContext) -> GateResult:
        started = time.monotonic()
        base = ctx.baseline.tests
        cmd = ctx.test_cmd or ctx.baseline.test_cmd or detect_test_command(ctx.root)
        if not cmd:
            return GateResult(NAME, "skipped", seconds=time.monotonic() - started,
                              reason="no test runner detected (configure a test command)")  # fmt: skip
        run = run_tests(ctx.root, ctx.sandbox, cmd, timeout=ctx.test_timeout)
        result = self._judge(run, base)
        result.seconds = time.monotonic() - started
        result.test_run = run  # the definition of done reads the same run
        if result.status == "failed" and not result.output:
            result.output = tail(said(run.output), 40, 4000)
        return result

    def _judge(self, run: TestRun, base: TestRun | None) -> GateResult:
        if why := run.cannot_start:
            return GateResult(NAME, "could_not_run", output=tail(said(run.output)),
                              reason=f"the test command could not start: {why}")  # fmt: skip
        if base is not None and (unstarted := base.cannot_start):
            result = self._by_exit_code(run, None)  # a baseline that never ran knows nothing
            if result.reason:
                result.reason = (f"the test command could not start before the change "
                                 f"({unstarted}): every failure counts as new")  # fmt: skip
            return result
        if run.problem:
            if base is not None and base.problem:
                return GateResult(NAME, "could_not_run", output=tail(said(run.output)), reason=(
                    f"the test run was already broken before the change ({base.problem}) "
                    f"and still is ({run.problem}), so nothing can be compared"))  # fmt: skip
            return GateResult(NAME, "failed", [_run_problem(run, run.problem)])
        if run.collected_nothing:
            return self._nothing_collected(run, base)
        if run.only_import_errors:
            return GateResult(NAME, "could_not_run", output=tail(said(run.output)), reason=(
                f"{run.command}: every test module failed to import, so no test ran "
                f"({_first_error(run)}) — run the tests with an interpreter that has the "
                "project installed (its virtualenv), or say how with --test-cmd"))  # fmt: skip
        if run.per_test and base is not None and base.per_test and not base.problem:
            return self._compare(run, base)
        return self._by_exit_code(run, base)

    @staticmethod
    def _nothing_collected(run: TestRun, base: TestRun | None) -> GateResult:
        ran = len(base.passing) if base is not None else 0
        if ran:
            what = f"{run.command} collected no tests (exit 5); {ran} passed before the change"
            return GateResult(NAME, "failed", [_run_problem(run, what)])
        return GateResult(NAME, "skipped", output=tail(said(run.output)),
                          reason=f"{run.command} collected no tests (exit 5)")  # fmt: skip

    @staticmethod
    def _compare(run: TestRun, base: TestRun) -> GateResult:
        new = [case_problem(run.cases[i]) for i in sorted(run.failing - base.failing)]
        fixed = [case_problem(base.cases[i]) for i in sorted(base.failing & run.passing)]
        notes = []
        gone = sorted(base.passing - set(run.cases))
        if gone:
            notes.append(f"{len(gone)} test(s) that passed at baseline no longer ran: "
                         + ", ".join(gone[:5]))  # fmt: skip
        if not run.failing and not run.green and not new:
            if base.green:
                new = [_run_problem(run, f"{run.command} exited {run.exit_code}")]
            else:
                notes.append(f"suite exited {run.exit_code}, as it did at baseline")
        still = len(run.failing & base.failing)
        if still:
            notes.append(f"{still} test(s) already failing at baseline still fail")
        status: Status = "failed" if new else "passed"
        output = "\n".join(p.render() for p in new)
        return GateResult(NAME, status, new, fixed, output, reason="; ".join(notes) or None)

    @staticmethod
    def _by_exit_code(run: TestRun, base: TestRun | None) -> GateResult:
        failing = [case_problem(run.cases[i]) for i in sorted(run.failing)]
        if run.green and not failing:
            fixed = []
            if base is not None and not base.green:
                fixed = [_run_problem(base, f"{base.command} exited {base.exit_code}")]
            return GateResult(NAME, "passed", [], fixed)
        problems = failing or [_run_problem(run, f"{run.command} exited {run.exit_code}")]
        if base is None:
            return GateResult(NAME, "failed", problems,
                              reason="no baseline test run: every failure counts as new")  # fmt: skip
        if base.green:
            return GateResult(NAME, "failed", problems)
        # it ran, but has no verdict on the change: never counted as a passed gate
        why = f" ({run.note})" if run.note else ""
        return GateResult(NAME, "skipped", reason=(
            f"`{run.command}` still fails (exit {run.exit_code}), as it did before the change "
            f"(exit {base.exit_code}), and gives no per-test outcomes{why}, so new failures "
            "cannot be told apart"), output=tail(said(run.output)))  # fmt: skip
