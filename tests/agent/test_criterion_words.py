"""What the user is told "done" means before the first edit, and how a change is judged when
the test run itself is broken — never a pass for a run that did not say."""

from __future__ import annotations

from patchwright.agent.criterion import Criterion, evaluate
from patchwright.verify.testrun import TestCase, TestRun

ADD = "tests/test_calc.py::test_add"


def _never(cmd: str) -> tuple[int | None, str]:
    raise AssertionError(f"no command should run: {cmd}")


def test_done_is_said_in_words_from_the_strongest_check_down() -> None:
    many = frozenset(f"tests/test_t.py::test_{i}" for i in range(7))
    assert Criterion(targets=many).describe() == (
        "the failing test(s) of the task pass: " + ", ".join(sorted(many)[:5]) + " and 2 more"
    )
    files = Criterion(target_files=frozenset({"tests/test_calc.py"}))
    assert files.describe() == "every test in tests/test_calc.py passes"
    both = Criterion(test_cmd="make test", done_when=("./repro.sh",), already_met=("./repro.sh",))
    assert (
        both.describe() == "`make test` exits 0; `./repro.sh` exits 0 (already before any change)"
    )


def test_a_criterion_that_cannot_prove_the_task_says_so() -> None:
    held = Criterion(done_when=("true",), already_met=("true",))
    assert held.defined and not held.proves
    assert held.describe().endswith("none of it can prove the task, so a change will be unverified")
    assert Criterion().describe() == (
        "none: nothing can prove this task done, so a change will be unverified"
    )
    covered = Criterion(covered={ADD: {"calc.py": ((1, 2),)}})  # add ran lines 1-2 of calc.py
    assert not covered.defined
    assert covered.describe().startswith("none yet: a change to code that 1 failing test(s) run")


def test_the_users_test_command_is_judged_by_its_run() -> None:
    crit = Criterion(test_cmd="pytest -q")
    missing = evaluate(crit, None, ["calc.py"], _never)
    assert missing is not None and not missing.met and missing.report == "`pytest -q` did not run"
    broken = TestRun("pytest -q", None, "Killed", problem="timed out after 60s")
    timed_out = evaluate(crit, broken, ["calc.py"], _never)
    assert timed_out is not None and timed_out.remaining == ["pytest -q"]
    assert timed_out.report.startswith("`pytest -q` timed out after 60s:")
    green = TestRun("pytest -q", 0, "2 passed", {}, per_test=False)
    assert evaluate(crit, green, ["calc.py"], _never) == evaluate(crit, green, [], _never)
    passed = evaluate(crit, green, ["calc.py"], _never)
    assert passed is not None and passed.met and passed.proved


def test_targets_are_not_met_by_a_run_that_gave_no_per_test_outcomes() -> None:
    crit = Criterion(targets=frozenset({ADD}))
    summary_only = TestRun("pytest -q", 0, "all good", {}, per_test=False)
    verdict = evaluate(crit, summary_only, ["calc.py"], _never)
    assert verdict is not None and not verdict.met and verdict.remaining == [ADD]
    assert "gave no per-test outcomes, so the task's tests could not be checked" in verdict.report
    passing = TestRun("pytest -q", 0, "", {ADD: TestCase(ADD, "passed", "tests/test_calc.py", 3)},
                      per_test=True)  # fmt: skip
    done = evaluate(crit, passing, ["calc.py"], _never)
    assert done is not None and done.met
