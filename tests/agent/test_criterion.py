"""The definition of done: which failing tests a task is about, and how a change is judged."""

from __future__ import annotations

from pathlib import Path

from patchwright.agent.criterion import Criterion, decide, evaluate
from patchwright.agent.relations.related_tests import related_tests, task_pointers
from patchwright.verify import Baseline
from patchwright.verify.testrun import TestCase, TestRun

TEXTS = {
    "calc.py": "def add(a, b):\n    return a - b\n\n\nclass Matrix:\n    pass\n",
    "clock.py": "def now():\n    return 0\n",
    "tests/test_calc.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_clock.py": "from clock import now\n\ndef test_now():\n    assert now() > 0\n",
    "tests/test_matrix.py": "import calc\n\nclass TestMatrix:\n    def test_shape(self): ...\n",
}


def failing(*cases: TestCase, exit_code: int = 1) -> TestRun:
    return TestRun("pytest -q", exit_code, "", {c.id: c for c in cases}, per_test=True)


def case(test_id: str, message: str = "", detail: str = "", outcome: str = "failed") -> TestCase:
    return TestCase(test_id, outcome, test_id.split("::")[0], 3, message, detail)  # type: ignore[arg-type]


ADD = case("tests/test_calc.py::test_add", "assert -1 == 5")
NOW = case("tests/test_clock.py::test_now", "assert 0 > 0")
SHAPE = case("tests/test_matrix.py::TestMatrix::test_shape", "boom")


def baseline(run: TestRun | None) -> Baseline:
    return Baseline(Path("."), {}, frozenset(), tests=run, test_cmd=run.command if run else None)


def test_a_test_named_for_the_function_the_task_calls_is_a_target() -> None:
    run = failing(ADD, NOW)
    assert related_tests(run, "add() returns the wrong result; fix it.", TEXTS) == {ADD.id}


def test_a_function_defined_in_the_repo_counts_without_backticks() -> None:
    assert task_pointers("the function add has a bug", TEXTS).identifiers == {"add"}
    assert related_tests(failing(ADD, NOW), "the function add has a bug", TEXTS) == {ADD.id}


def test_a_test_file_importing_the_named_module_is_a_target() -> None:
    run = failing(ADD, NOW, SHAPE)
    assert related_tests(run, "calc.py is broken", TEXTS) == {ADD.id, SHAPE.id}


def test_a_class_under_test_links_its_test_class() -> None:
    assert related_tests(failing(SHAPE, NOW), "`Matrix` has the wrong shape", TEXTS) == {SHAPE.id}


def test_a_traceback_through_a_named_file_links_the_test() -> None:
    odd = case("tests/test_x.py::test_y", "boom", "calc.py:2: in add\n    return a - b")
    assert related_tests(failing(odd, NOW), "calc.py gives wrong answers", TEXTS) == {odd.id}


def test_unrelated_failures_are_listed_not_required() -> None:
    crit = decide(baseline(failing(ADD, NOW)), "add() is wrong", TEXTS, user_test_cmd=None)
    assert crit.targets == {ADD.id}
    assert crit.unrelated == (NOW.id,)
    assert crit.defined
    assert "not required" in crit.notes[0]


def test_the_users_test_command_wins_and_must_exit_zero() -> None:
    run = TestRun("python3 t.py", 1, "AssertionError: nope")
    crit = decide(baseline(run), "fix it", TEXTS, user_test_cmd="python3 t.py")
    assert crit.test_cmd == "python3 t.py" and not crit.targets
    verdict = evaluate(crit, TestRun("python3 t.py", 1, "AssertionError: nope"), [], _never)
    assert verdict is not None and not verdict.met
    assert "AssertionError: nope" in verdict.report
    passed = evaluate(crit, TestRun("python3 t.py", 0, "ok"), [], _never)
    assert passed is not None and passed.met


def test_no_runner_and_no_commands_means_no_criterion() -> None:
    crit = decide(baseline(None), "tidy up", TEXTS, user_test_cmd=None)
    assert not crit.defined
    assert evaluate(crit, None, ["calc.py"], _never) is None
    assert "no test runner" in crit.notes[0]


def test_a_suite_without_per_test_outcomes_cannot_name_targets() -> None:
    run = TestRun("npm test", 1, "1 failing")
    crit = decide(baseline(run), "fix the sum", TEXTS, user_test_cmd=None)
    assert not crit.defined and "--test-cmd" in crit.notes[0]


def test_a_change_through_a_failing_tests_traceback_adds_that_test() -> None:
    traced = case("tests/test_clock.py::test_now", "assert 0 > 0", "clock.py:2: in now")
    crit = decide(baseline(failing(traced)), "make the report nicer", TEXTS, user_test_cmd=None)
    assert not crit.defined  # nothing known before the edit
    assert crit.targets_for(["calc.py"]) == frozenset()
    assert crit.targets_for(["clock.py"]) == {traced.id}
    still = evaluate(crit, failing(traced), ["clock.py"], _never)
    assert still is not None and not still.met and still.remaining == [traced.id]


def test_a_target_that_no_longer_runs_is_not_done() -> None:
    crit = Criterion(targets=frozenset({ADD.id}))
    verdict = evaluate(crit, failing(NOW), ["calc.py"], _never)
    assert verdict is not None and not verdict.met
    assert "no longer ran" in verdict.report


def test_done_when_commands_run_and_must_succeed() -> None:
    crit = Criterion(done_when=("python3 repro.py", "make check"))
    seen: list[str] = []

    def runner(cmd: str) -> tuple[int | None, str]:
        seen.append(cmd)
        return (0, "") if cmd == "make check" else (1, "Traceback: boom")

    verdict = evaluate(crit, None, [], runner)
    assert seen == ["python3 repro.py", "make check"]
    assert verdict is not None and verdict.remaining == ["python3 repro.py"]
    assert "boom" in verdict.report


def _never(cmd: str) -> tuple[int | None, str]:
    raise AssertionError(f"no command should run: {cmd}")


def test_a_broken_baseline_run_falls_back_to_the_test_files_the_task_names() -> None:
    run = TestRun("pytest -q", None, "timed out", problem="timed out after 5s")
    crit = decide(baseline(run), "tests/test_calc.py hangs; fix add", TEXTS, user_test_cmd=None)
    assert crit.target_files == {"tests/test_calc.py"} and crit.defined
    fixed = failing(case(ADD.id, outcome="passed"), NOW, exit_code=1)
    verdict = evaluate(crit, fixed, ["calc.py"], _never)
    assert verdict is not None and verdict.met
    still = evaluate(crit, failing(ADD), ["calc.py"], _never)
    assert still is not None and still.remaining == [ADD.id]
    none_ran = evaluate(crit, failing(NOW), ["calc.py"], _never)
    assert none_ran is not None and not none_ran.met and "no test" in none_ran.report


def test_with_the_users_command_a_failing_test_must_pass_not_stop_running() -> None:
    """A Rust reply swapped `mod tests;` for a module of its own: the protected tests.rs no
    longer compiled, and `cargo test` exited 0 without the failing test."""
    crit = decide(baseline(failing(ADD, NOW)), "fix add", TEXTS, user_test_cmd="pytest -q")
    assert crit.must_pass == {ADD.id, NOW.id}
    only_now = {NOW.id: case(NOW.id, outcome="passed")}
    unlinked = evaluate(crit, TestRun("pytest -q", 0, "", only_now, per_test=True), [], _never)
    assert unlinked is not None and not unlinked.met
    assert unlinked.remaining == [ADD.id]
    assert "did not pass in it" in unlinked.report and ADD.id in unlinked.report
    both = {**only_now, ADD.id: case(ADD.id, outcome="passed")}
    passed = evaluate(crit, TestRun("pytest -q", 0, "", both, per_test=True), [], _never)
    assert passed is not None and passed.met


def test_without_per_test_outcomes_the_users_command_is_judged_by_its_exit_code() -> None:
    crit = decide(baseline(TestRun("make t", 1, "boom")), "fix it", TEXTS, user_test_cmd="make t")
    assert crit.must_pass == frozenset()
    passed = evaluate(crit, TestRun("make t", 0, "ok"), [], _never)
    assert passed is not None and passed.met


def test_a_test_module_that_failed_to_import_is_done_when_its_tests_now_run_and_pass() -> None:
    """HumanEvalFix calls its check at import: the baseline's failure is the module's
    collection error, and after the fix that id is gone, its tests passing in its place."""
    broken = case("tests/test_calc.py", "collection failure", outcome="error")
    crit = decide(baseline(failing(broken)), "fix add", TEXTS, user_test_cmd="pytest -q")
    assert crit.must_pass == {broken.id}
    fixed = {ADD.id: case(ADD.id, outcome="passed")}
    verdict = evaluate(crit, TestRun("pytest -q", 0, "", fixed, per_test=True), [], _never)
    assert verdict is not None and verdict.met
    elsewhere = {NOW.id: case(NOW.id, outcome="passed")}  # the module's own tests did not run
    unlinked = evaluate(crit, TestRun("pytest -q", 0, "", elsewhere, per_test=True), [], _never)
    assert unlinked is not None and not unlinked.met and unlinked.remaining == [broken.id]
    targeted = Criterion(targets=frozenset({broken.id}))
    assert evaluate(targeted, failing(fixed[ADD.id], exit_code=0), ["calc.py"], _never).met  # type: ignore[union-attr]


def test_a_package_that_did_not_build_is_done_when_its_tests_then_build_and_pass() -> None:
    build = TestCase("calc::[build]", "error", "calc", None, "undefined: add")
    crit = decide(baseline(failing(build)), "fix the build", TEXTS, user_test_cmd="go test ./...")
    ok = TestCase("calc/calc_test.go::TestAdd", "passed", "calc/calc_test.go", 4)
    other = TestCase("clock/clock_test.go::TestNow", "passed", "clock/clock_test.go", 4)
    built = evaluate(crit, TestRun("go test", 0, "", {ok.id: ok}, per_test=True), [], _never)
    assert built is not None and built.met
    elsewhere = evaluate(crit, TestRun("go test", 0, "", {other.id: other}, per_test=True), [],
                         _never)  # fmt: skip
    assert elsewhere is not None and not elsewhere.met


def test_a_test_that_fails_exactly_as_before_the_change_is_said_to() -> None:
    """HumanEvalFix Python/11: three repairs changed the code and the test still said
    `assert '101101' == '010010'` — the repair prompt now says the change made no
    difference, where before it read like any other failure."""
    before = failing(case(ADD.id, "assert -1 == 5", "calc.py:2: in add\nAssertionError"))
    crit = decide(baseline(before), "fix add", TEXTS, user_test_cmd="pytest -q")
    moved = failing(case(ADD.id, "assert -1 == 5", "calc.py:4: in add\nAssertionError"))
    same = evaluate(crit, moved, ["calc.py"], _never, before=before)
    assert same is not None and not same.met
    assert same.report.startswith("`pytest -q` still fails, exactly as before the change")
    other = evaluate(crit, failing(case(ADD.id, "assert 6 == 5")), ["calc.py"], _never,
                     before=before)  # fmt: skip
    assert other is not None and other.report.startswith("`pytest -q` still fails:\n")
    targeted = Criterion(targets=frozenset({ADD.id}))
    verdict = evaluate(targeted, moved, ["calc.py"], _never, before=before)
    assert verdict is not None and "tests still fail, exactly as before" in verdict.report


def test_a_long_test_command_is_quoted_once_and_named_after() -> None:
    """A polyglot task's command is a 290-character script: the repair prompt's "Done means"
    line quotes it, and its failure report calls it the test command instead of again."""
    script = 'D="${DEPS:-/opt/deps}"; [ -x "$D/jest" ] || exit 3; ln -sf "$D" node_modules && jest --ci ./*'
    before = failing(case(ADD.id, "assert -1 == 5"))
    crit = decide(baseline(before), "fix add", TEXTS, user_test_cmd=script)
    verdict = evaluate(crit, failing(case(ADD.id, "assert 6 == 5")), ["calc.py"], _never,
                       before=before)  # fmt: skip
    assert verdict is not None and verdict.report.startswith("the test command still fails:\n")
    assert script not in verdict.report and crit.describe() == f"`{script}` exits 0"


def test_failures_that_say_nothing_are_not_called_unchanged() -> None:
    silent = failing(case(ADD.id))
    crit = decide(baseline(silent), "fix add", TEXTS, user_test_cmd="pytest -q")
    verdict = evaluate(crit, failing(case(ADD.id)), ["calc.py"], _never, before=silent)
    assert verdict is not None and "exactly as before" not in verdict.report
