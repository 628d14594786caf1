"""The groundwork of a task, before the first model call: the baseline, what "done" means, how
it fails now, which tests are read-only — and a task whose checks cannot run here stops before
any model call is spent on it."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from tests.conftest import make_repo

from patchwright.agent.request import Overrides, RunError, build_request
from patchwright.agent.session import Session
from patchwright.agent.task.prepare import (
    UNBUILT_TESTS,
    Groundwork,
    _unbuilt_tests,
    _untold_tests,
    prepare,
)
from patchwright.agent.task.repo import open_repo
from patchwright.config import Settings
from patchwright.events import BaselineDone, BaselineStart, CriterionDecided, Event, EventBus
from patchwright.verify.testmodel import TestCase, TestRun

TASK = "apply_discount returns the discount, not the price. Fix it."


def groundwork(repo: Path, tmp_path: Path, task: str = TASK, **overrides: object) -> tuple[
    Groundwork, list[Event]
]:  # fmt: skip
    script = tmp_path / "script.jsonl"
    script.write_text('{"content": "unused"}\n')
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}"}})
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    session = Session(settings, repo, bus=bus)
    request = build_request(task, settings, Overrides(yes=True, **overrides))  # type: ignore[arg-type]
    return prepare(session, open_repo(session, request), request), events


def test_the_failing_test_the_task_is_about_becomes_the_criterion(
    shop_repo: Path, tmp_path: Path
) -> None:
    ground, events = groundwork(shop_repo, tmp_path)
    assert ground.criterion.defined
    assert sorted(ground.criterion.targets) == [
        "tests/test_pricing.py::test_quarter_off",
        "tests/test_pricing.py::test_zero",
    ]
    assert "test_quarter_off" in ground.done and "assert 50.0 == 150.0" in ground.failures
    assert ground.protected == ["tests/test_pricing.py"]  # the check cannot be rewritten
    assert "shop/pricing.py" in ground.texts
    kinds = [type(e) for e in events]
    assert kinds.index(BaselineStart) < kinds.index(BaselineDone) < kinds.index(CriterionDecided)
    [done] = [e for e in events if isinstance(e, BaselineDone)]
    assert done.failing == 2


def test_a_task_that_asks_to_change_the_tests_may_change_them(
    shop_repo: Path, tmp_path: Path
) -> None:
    ground, _ = groundwork(shop_repo, tmp_path, "Update the tests for apply_discount")
    assert ground.protected == []


def test_a_done_when_command_that_already_holds_cannot_prove_the_task(
    shop_repo: Path, tmp_path: Path
) -> None:
    ground, events = groundwork(shop_repo, tmp_path, done_when=["true", "test -f shop/new.py"])
    assert list(ground.criterion.already_met) == ["true"]
    assert "`test -f shop/new.py` exits 1" in ground.failures
    [decided] = [e for e in events if isinstance(e, CriterionDecided)]
    assert decided.done_when == ["true", "test -f shop/new.py"]


def test_a_done_when_script_the_task_will_write_is_let_through(
    shop_repo: Path, tmp_path: Path
) -> None:
    ground, _ = groundwork(shop_repo, tmp_path, done_when=["./scripts/check.sh"])
    assert "./scripts/check.sh" in ground.failures


def test_a_done_when_command_that_cannot_start_stops_before_any_model_call(
    shop_repo: Path, tmp_path: Path
) -> None:
    with pytest.raises(RunError, match="--done-when `no-such-tool --check` cannot start"):
        groundwork(shop_repo, tmp_path, done_when=["no-such-tool --check"])


def test_a_test_command_that_cannot_start_stops_and_says_how_to_fix_it(
    shop_repo: Path, tmp_path: Path
) -> None:
    with pytest.raises(RunError, match="fix --test-cmd") as caught:
        groundwork(shop_repo, tmp_path, test_cmd="no-such-runner tests")
    assert "cannot start in the sandbox" in str(caught.value)
    assert "nothing was changed" in str(caught.value)


def test_with_the_users_test_command_the_whole_suite_must_pass(
    shop_repo: Path, tmp_path: Path
) -> None:
    ground, _ = groundwork(shop_repo, tmp_path, test_cmd="python -m pytest -q")
    assert ground.criterion.test_cmd == "python -m pytest -q"
    assert ground.protected == ["tests/test_pricing.py"]  # the failing tests' file


STUBS = "/// What should the type of _function be?\npub fn map(input: Vec<i32>, _function: ???) -> Vec<i32> {\n    todo!()\n}\n"
ACCUMULATE = "use accumulate::map;\n\n#[test]\nfn squares() {\n    assert_eq!(map(vec![1, 2], |x| x * x), vec![1, 4]);\n}\n"


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_tests_that_do_not_build_against_the_stubs_are_read_only_all_the_same(
    tmp_path: Path,
) -> None:
    """Polyglot Rust accumulate: the stubs did not compile (``_function: ???``), so the suite
    named no test file; 3 of 4 replies then rewrote the tests to fit their own signature."""
    cargo = '[package]\nname = "accumulate"\nversion = "0.1.0"\nedition = "2021"\n'
    files = {"Cargo.toml": cargo, "src/lib.rs": STUBS, "tests/accumulate.rs": ACCUMULATE}
    repo = make_repo(tmp_path / "accumulate", files)
    ground, _ = groundwork(repo, tmp_path, "Implement the exercise in src/lib.rs.",
                           test_cmd="cargo test --offline")  # fmt: skip
    assert ".::[build]" in ground.criterion.must_pass  # no test of a file
    assert ground.protected == ["tests/accumulate.rs"]


def test_a_folder_that_does_not_build_makes_its_own_few_test_files_read_only() -> None:
    build = TestCase("pkg::[build]", "error", "pkg", None, "build failed",
                     "./pkg/calc.go:3:1: syntax error: non-declaration statement")  # fmt: skip
    paths = ["pkg/calc.go", "pkg/calc_test.go", "other/other_test.go", "main_test.go"]
    assert _unbuilt_tests(build, paths) == {"pkg/calc_test.go"}
    many = [f"pkg/t{i}_test.go" for i in range(UNBUILT_TESTS + 1)]
    named = replace(build, detail="pkg/t3_test.go:9:2: undefined: Add")
    assert _unbuilt_tests(named, many) == {"pkg/t3_test.go"}  # too many: only those it names


def test_a_failing_command_that_names_no_test_makes_its_few_test_files_read_only() -> None:
    """A bare ``npm test`` (``node test/check.js``) reports no test: its test files stand for
    the failing tests, all of them when few, else those its output names."""
    said = "AssertionError: -1 !== 5\n    at Object.<anonymous> (test/t3.test.js:4:8)"
    failing = TestRun("npm test", 1, said)
    paths = ["src/calc.js", "test/check.js", "test/t3.test.js", "README.md"]
    assert _untold_tests(failing, paths) == {"test/check.js", "test/t3.test.js"}
    many = [f"test/t{i}.test.js" for i in range(UNBUILT_TESTS + 1)]
    assert _untold_tests(failing, many) == {"test/t3.test.js"}  # too many: only those it names
    assert _untold_tests(replace(failing, exit_code=0), paths) == set()  # passes: none
    named = TestCase("test/check.js::adds", "failed", "test/check.js", None, "", "")
    assert _untold_tests(replace(failing, cases={named.id: named}), paths) == set()
