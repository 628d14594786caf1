"""The tests gate: detect the runner, run it in the sandbox, compare each test with the
baseline — a failure that was already there does not block, a new one does."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import Baseline, TestsGate, detect_test_command, summarize_failures

GATE = [TestsGate()]
# pytest as detected, minus third-party plugin loading (a second off each run; detection
# itself is covered by test_runner_detection below)
PYTEST = f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {shlex.quote(sys.executable)} -m pytest -q"
CODE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b  # bug\n"
TESTS = (
    "from calc import add, sub\n\n\n"
    "def test_add():\n    assert add(2, 2) == 4\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "class TestMore:\n    def test_zero(self):\n        assert add(0, 0) == 0\n"
)


def test_preexisting_failure_does_not_block_a_new_one_does_a_fix_is_reported(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"calc.py": CODE, "tests/test_calc.py": TESTS})
    base = baseline(test_cmd=PYTEST)
    assert base.failing_tests == {"tests/test_calc.py::test_sub"}
    assert "assert 8 == 2" in base.failure_output
    # what the agent loop reads from a baseline case: where the test is and why it failed
    assert base.tests is not None
    case = base.tests.cases["tests/test_calc.py::test_sub"]
    assert case.path == "tests/test_calc.py" and case.line == 8  # the def line
    assert case.outcome == "failed" and "assert 8 == 2" in case.message

    # break add(): two newly failing tests, the old one is not listed
    write({"calc.py": CODE.replace("return a + b\n\n", "return a * b + 1\n\n", 1)})
    results = check(base, ["calc.py"], gates=GATE)
    result = results["tests"]
    assert result.status == "failed"
    assert [p.message for p in result.new_problems] == [
        "tests/test_calc.py::TestMore::test_zero",
        "tests/test_calc.py::test_add",
    ]
    assert all(p.path == "tests/test_calc.py" and p.line for p in result.new_problems)
    assert "1 test(s) already failing at baseline still fail" in (result.reason or "")
    summary = summarize_failures(list(results.values()))
    assert "test_add" in summary and "assert 5 == 4" in summary and "test_sub" not in summary
    assert len(summary) < 4000

    # fix sub(): passes, and the fix is reported
    write({"calc.py": CODE.replace("return a + b  # bug", "return a - b")})
    result = check(base, ["calc.py"], gates=GATE)["tests"]
    assert result.status == "passed"
    assert [p.message for p in result.fixed_problems] == ["tests/test_calc.py::test_sub"]


def test_a_hanging_test_run_fails_the_gate(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"run.sh": "exit 0\n"})
    base = baseline(test_cmd="bash run.sh")
    write({"run.sh": "while :; do :; done\n"})
    result = check(base, ["run.sh"], gates=GATE, test_cmd="bash run.sh", test_timeout=1)["tests"]
    assert result.status == "failed"
    assert "timed out" in result.new_problems[0].message


def test_a_test_module_that_stops_importing_is_a_new_failure(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({
        "tests/test_a.py": "def test_a():\n    assert True\n",
        "tests/test_b.py": "import json\n\n\ndef test_b():\n    assert json\n",
    })  # fmt: skip
    base = baseline(test_cmd=PYTEST)
    assert base.failing_tests == set()
    write({"tests/test_b.py": "import jsonn\n\n\ndef test_b():\n    assert jsonn\n"})
    result = check(base, ["tests/test_b.py"], gates=GATE)["tests"]
    assert result.status == "failed"
    (problem,) = result.new_problems
    assert problem.message == "tests/test_b.py" and problem.code == "error"
    assert "No module named 'jsonn'" in problem.detail
    # test_a still ran; only test_b itself vanished, and the gate says so
    assert (
        result.reason == "1 test(s) that passed at baseline no longer ran: tests/test_b.py::test_b"
    )


def test_a_runner_that_cannot_start_could_not_run(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"a.py": "x = 1\n"})
    cmd = "patchwright-no-such-runner --all"
    base = baseline(test_cmd=cmd)
    result = check(base, ["a.py"], gates=GATE, test_cmd=cmd)["tests"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert "the test command could not start" in (result.reason or "")
    assert "patchwright-no-such-runner: command not found" in (result.reason or "")


def test_a_pytest_usage_error_before_and_after_could_not_run(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"calc.py": CODE, "tests/test_calc.py": TESTS})
    cmd = f"{PYTEST} --no-such-option"  # pytest exits 4 and writes no report
    base = baseline(test_cmd=cmd)
    write({"calc.py": CODE.replace("return a + b\n\n", "return a * b\n\n")})
    result = check(base, ["calc.py"], gates=GATE, test_cmd=cmd)["tests"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert "already broken before the change (pytest exited 4" in (result.reason or "")


def test_no_tests_collected_is_a_stated_skip_and_not_a_pass_for_other_runners(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"a.py": "x = 1\n", "tests/helpers.py": "y = 2\n"})
    cmd = f"{PYTEST} tests"
    result = check(baseline(test_cmd=cmd), ["a.py"], gates=GATE, test_cmd=cmd)["tests"]
    assert result.status == "skipped" and "collected no tests (exit 5)" in (result.reason or "")

    five = "python3 -c 'raise SystemExit(5)'"  # for any other runner 5 is a failure
    write({"state.txt": "ok\n"})
    green = baseline(test_cmd="true")
    assert green.tests is not None and green.tests.green
    result = check(green, ["state.txt"], gates=GATE, test_cmd=five)["tests"]
    assert result.status == "failed"


def test_no_runner_detected_is_a_stated_skip(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"README.md": "hi\n"})
    result = check(baseline(), [], gates=GATE)["tests"]
    assert result.status == "skipped" and "no test runner detected" in (result.reason or "")


def test_exit_code_runners_compare_with_the_baseline_verdict(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"check.sh": "grep -q good state.txt\n", "state.txt": "good\n"})
    cmd = "bash check.sh"
    base = baseline(test_cmd=cmd)
    write({"state.txt": "bad\n"})
    result = check(base, ["state.txt"], gates=GATE, test_cmd=cmd)["tests"]
    assert result.status == "failed" and result.new_problems[0].code == "run"

    broken = baseline(test_cmd=cmd)  # the suite already fails at baseline time
    assert broken.failing_tests == set()  # no per-test outcomes, but the failure is told
    assert broken.failure_output.startswith("bash check.sh exited 1")
    result = check(broken, ["state.txt"], gates=GATE, test_cmd=cmd)["tests"]
    # no verdict either way: not a failure, and never counted as a passed gate
    assert result.status == "skipped" and result.ok
    assert result.reason == (
        "`bash check.sh` still fails (exit 1), as it did before the change (exit 1), and "
        "gives no per-test outcomes, so new failures cannot be told apart"
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pytest.ini": "[pytest]\n"}, "pytest"),
        ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"}, "pytest"),
        ({"setup.cfg": "[tool:pytest]\ntestpaths = t\n"}, "pytest"),
        ({"tox.ini": "[pytest]\n"}, "pytest"),
        ({"tests/test_a.py": ""}, "pytest"),
        ({"pkg/test_a.py": ""}, "pytest"),
        ({"package.json": '{"scripts": {"test": "jest"}}'}, "npm test --silent"),
        ({"package.json": '{"scripts": {"test": "echo \\"Error: no test specified\\" && exit 1"}}'},
         None),
        ({"go.mod": "module x\n"}, "go test ./..."),
        ({"Cargo.toml": "[package]\n"}, "cargo test"),
        ({"README.md": ""}, None),
    ],
)  # fmt: skip
def test_runner_detection(tmp_path: Path, files: dict[str, str], expected: str | None) -> None:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    found = detect_test_command(tmp_path)
    if expected == "pytest":
        assert found == f"{sys.executable} -m pytest -q"
    else:
        assert found == expected


def test_a_failure_is_told_by_its_location_and_assertion_with_whole_values() -> None:
    from patchwright.verify.testrun import failure_gist

    text = "\n".join(
        ["def test_x():", ">       assert f() == [1, 2]",
         "E       assert [1, 2, 3] == [1, 2]", "E         ", "E         Left contains one more item: 3",
         "E         Full diff:", "E         - [1, 2]", "", "t_test.py:3: AssertionError"]
    )  # fmt: skip
    assert failure_gist(text).splitlines() == [
        "t_test.py:3: AssertionError",
        "> assert f() == [1, 2]",
        "E       assert [1, 2, 3] == [1, 2]",
        "E         Left contains one more item: 3",
    ]
    assert failure_gist("no assertion here\nTimeout") == "no assertion here\nTimeout"


def test_a_baseline_that_could_not_start_makes_every_failure_new(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """``patchwright check`` exports HEAD without ``node_modules``: jest was not found there
    (exit 127), and the gate said "the suite already failed at baseline" and passed."""
    write({"run.sh": "exit 0\n"})
    base = baseline(test_cmd="./no-such-runner")
    assert base.tests is not None and base.tests.cannot_start
    write({"no-such-runner": "#!/bin/sh\necho 'a test failed'; exit 1\n"})
    (Path(base.root) / "no-such-runner").chmod(0o755)
    result = check(base, ["run.sh"], gates=GATE, test_cmd="./no-such-runner")["tests"]
    assert result.status == "failed"
    assert "could not start before the change" in (result.reason or "")


def test_a_suite_whose_every_module_fails_to_import_could_not_run_never_passes(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    # the interpreter lacks the project: before and after alike nothing is tested
    broken = TESTS.replace("from calc import", "from not_installed_anywhere import")
    write({"calc.py": CODE, "tests/test_calc.py": broken, "tests/test_more.py": broken})
    base = baseline(test_cmd=PYTEST)
    write({"calc.py": CODE.replace("a + b  # bug", "a - b")})

    result = check(base, ["calc.py"], gates=GATE, test_cmd=PYTEST)["tests"]

    assert result.status == "could_not_run", result.reason
    assert "every test module failed to import" in (result.reason or "")
    assert "not_installed_anywhere" in (result.reason or "")


def test_a_test_command_runs_as_in_the_repositorys_activated_virtualenv(tmp_path: Path) -> None:
    from patchwright.verify.testrun import venv_env

    assert venv_env(tmp_path) == {}  # no venv of its own: the caller's PATH as it is
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)

    env = venv_env(tmp_path)

    assert env["PATH"].split(":")[0] == str(python.parent)
    assert env["VIRTUAL_ENV"] == str(tmp_path / ".venv")


def test_a_module_whose_own_check_fails_as_it_is_collected_is_a_failing_test_not_a_broken_suite(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    # HumanEvalFix's shape: check(sub) at module level asserts while pytest collects it
    module = ("from calc import sub\n\n\ndef check(f):\n    assert f(5, 3) == 2\n\ncheck(sub)\n\n\n"
              "def test_sub():\n    check(sub)\n")  # fmt: skip
    write({"calc.py": CODE, "tests/test_calc.py": module})
    base = baseline(test_cmd=PYTEST)
    assert base.tests is not None and not base.tests.only_import_errors

    write({"calc.py": CODE + "# touched\n"})
    still = check(base, ["calc.py"], gates=GATE, test_cmd=PYTEST)["tests"]
    write({"calc.py": CODE.replace("a + b  # bug", "a - b")})
    fixed = check(base, ["calc.py"], gates=GATE, test_cmd=PYTEST)["tests"]

    assert still.status == "passed" and "already failing at baseline" in (still.reason or "")
    assert fixed.status == "passed" and fixed.test_run is not None
    assert fixed.test_run.passing == {"tests/test_calc.py::test_sub"} and not fixed.test_run.failing


def test_a_run_that_timed_out_before_and_after_shows_what_happened_not_pytests_header(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    slow = "import time\n\n\ndef test_forever():\n    time.sleep(60)\n"
    write({"calc.py": CODE, "tests/test_slow.py": slow})
    cmd = f"{PYTEST} tests"
    base = baseline(test_cmd=cmd, test_timeout=3)
    write({"calc.py": CODE + "\n"})
    result = check(base, ["calc.py"], gates=GATE, test_cmd=cmd, test_timeout=3)["tests"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert "timed out" in (result.reason or "")
    assert "timeout" in result.output  # the sandbox's own line says the run was killed
    assert "rootdir:" not in result.output
    assert "test session starts" not in result.output


def test_the_same_failure_reads_the_same_on_every_run(
    write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    # pytest shows `<function add at 0x7f3a…>`: an address that changes from run to run
    # would change the model's prompt, and a greedy model's reply, for the same failure
    checking = "from calc import add\n\n\ndef check(fn):\n    assert fn(2, 2) == 4\n\n\n"
    write({"calc.py": CODE.replace("return a + b\n\n", "return a - b\n\n", 1),
           "tests/test_calc.py": checking + "def test_add():\n    check(add)\n"})  # fmt: skip
    runs = [baseline(test_cmd=f"{PYTEST} tests").tests for _ in range(2)]
    cases = [run.cases["tests/test_calc.py::test_add"] for run in runs if run is not None]
    assert len(cases) == 2
    assert "<function add at 0x…>(2, 2)" in cases[0].detail
    assert cases[0] == cases[1]
