"""``solved`` means the task's criterion held: the user's test command, the task's failing
tests or ``--done-when`` commands. Real git repos, real subprocesses, scripted replies."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

Script = Callable[[list[str]], Path]

MAIN = "def add(a, b):\n    return a - b\n"
MAIN_FIXED = "def add(a, b):\n    return a + b\n"
TEST_MAIN = (
    "from main import add\n\nassert add(2, 3) == 5, f'add(2, 3) gave {add(2, 3)}'\nprint('ok')\n"
)
CALC = '"""Arithmetic."""\n\n\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
CALC_FIXED = CALC.replace("return a - b", "return a + b")
TEST_CALC = (
    "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)


def sr(path: str, search: str, replace: str) -> str:
    return (
        f"{path}\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"
    )


COMMENT_ONLY = sr("main.py", "def add(a, b):", "# add two numbers\ndef add(a, b):")
OTHER_COMMENT = sr("main.py", "    return a - b", "    return a - b  # the sum")
FIX_MAIN = sr("main.py", "    return a - b", "    return a + b")
COMMENT_CALC = sr("calc.py", "def add(a, b):", "# add two numbers\ndef add(a, b):")
FIX_CALC = sr("calc.py", "    return a - b", "    return a + b")


def summary_of(repo: Path) -> dict[str, Any]:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    return dict(json.loads((run_dir / "summary.json").read_text()))


def user_prompts(repo: Path) -> list[str]:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


@pytest.fixture
def script_repo(tmp_path: Path, shop: Any) -> Path:
    """Reproduction 1: a plain-script test that fails, judged only by its exit code."""
    return shop.make_repo(tmp_path / "adder", {"main.py": MAIN, "test_main.py": TEST_MAIN})


@pytest.fixture
def pytest_repo(tmp_path: Path, shop: Any) -> Path:
    """Reproduction 2: a pytest suite whose failing test the task does not name."""
    files = {"calc.py": CALC, "tests/test_calc.py": TEST_CALC, "conftest.py": ""}
    return shop.make_repo(tmp_path / "calc", files)


SCRIPT_TASK = "The function add in main.py has a bug. Fix it."
PYTEST_TASK = "add() returns the wrong result; fix it."


def test_a_comment_only_change_does_not_satisfy_the_users_test_command(
    script_repo: Path, script: Script, shop: Any
) -> None:
    before, head = shop.fingerprint(script_repo), shop.git(script_repo, "rev-parse", "HEAD")
    replies = script([COMMENT_ONLY, OTHER_COMMENT])
    code, out = shop.run(script_repo, SCRIPT_TASK, replies, "--test-cmd", "python3 test_main.py")
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["criterion"]["test_cmd"] == "python3 test_main.py"
    assert out["criterion"]["met"] is False
    assert shop.fingerprint(script_repo) == before
    assert shop.git(script_repo, "rev-parse", "HEAD") == head


def test_the_failing_output_drives_one_repair_to_a_solution(
    script_repo: Path, script: Script, shop: Any
) -> None:
    replies = script([COMMENT_ONLY, FIX_MAIN, "fix(main): add returns the sum"])
    code, out = shop.run(script_repo, SCRIPT_TASK, replies, "--test-cmd", "python3 test_main.py")
    assert (code, out["outcome"], out["iterations"]) == (0, "solved", 2), out
    assert out["criterion"]["met"] is True
    # the repair builds on the first attempt, as the model was told
    assert (script_repo / "main.py").read_text() == "# add two numbers\n" + MAIN_FIXED
    prompts = user_prompts(script_repo)
    assert "add(2, 3) gave -1" in prompts[0]  # the first prompt shows what done looks like
    assert "add(2, 3) gave -1" in prompts[1] and SCRIPT_TASK in prompts[1]  # the repair
    assert "python3 test_main.py" in prompts[1]
    assert shop.git(script_repo, "log", "-1", "--format=%s").strip() == (
        "fix(main): add returns the sum"
    )


def test_failing_tests_about_the_task_are_its_targets_even_when_not_named(
    pytest_repo: Path, script: Script, shop: Any
) -> None:
    before = shop.fingerprint(pytest_repo)
    code, out = shop.run(
        pytest_repo,
        PYTEST_TASK,
        script([COMMENT_CALC, sr("calc.py", "    return a - b", "    return a - b  # sum")]),
    )
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["criterion"]["targets"] == ["tests/test_calc.py::test_add"]
    assert out["criterion"]["remaining"] == ["tests/test_calc.py::test_add"]
    assert shop.fingerprint(pytest_repo) == before


def test_a_target_fixed_after_one_repair_is_solved(
    pytest_repo: Path, script: Script, shop: Any
) -> None:
    code, out = shop.run(
        pytest_repo, PYTEST_TASK, script([COMMENT_CALC, FIX_CALC, "fix(calc): sum"])
    )
    assert (code, out["outcome"], out["iterations"]) == (0, "solved", 2), out
    assert "return a + b" in (pytest_repo / "calc.py").read_text()
    assert "assert -1 == 5" in user_prompts(pytest_repo)[1]


def test_unrelated_failures_are_reported_and_do_not_block(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {
        "calc.py": CALC,
        "clock.py": "def now():\n    return 0\n",
        "tests/test_calc.py": TEST_CALC,
        "tests/test_clock.py": "from clock import now\n\n\ndef test_now():\n    assert now() > 0\n",
        "conftest.py": "",
    }
    repo = shop.make_repo(tmp_path / "two", files)
    code, out = shop.run(repo, PYTEST_TASK, script([FIX_CALC, "fix(calc): sum"]))
    assert (code, out["outcome"]) == (0, "solved"), out
    assert out["criterion"]["unrelated_failures"] == ["tests/test_clock.py::test_now"]
    notes = " ".join(summary_of(repo)["notes"])
    assert "tests/test_clock.py::test_now" in notes and "not required" in notes


def test_done_when_commands_are_part_of_done(tmp_path: Path, script: Script, shop: Any) -> None:
    repro = "from main import add\nimport sys\nsys.exit(0 if add(1, 1) == 2 else 1)\n"
    repo = shop.make_repo(tmp_path / "repro", {"main.py": MAIN, "repro.py": repro})
    task = "add in main.py gives wrong sums"
    code, out = shop.run(
        repo, task, script([COMMENT_ONLY, OTHER_COMMENT]), "--done-when", "python3 repro.py"
    )
    assert (code, out["outcome"]) == (1, "failed")
    assert out["criterion"]["remaining"] == ["python3 repro.py"]
    code, out = shop.run(
        repo, task, script([FIX_MAIN, "fix(main): sum"]), "--done-when", "python3 repro.py"
    )
    assert (code, out["outcome"]) == (0, "solved"), out
    assert out["criterion"]["done_when"] == ["python3 repro.py"]


def test_without_any_criterion_the_change_is_unverified(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "plain", {"main.py": MAIN})
    code, out = shop.run(repo, "Make add in main.py add.", script([FIX_MAIN, "fix(main): sum"]))
    assert (code, out["outcome"]) == (4, "unverified"), out
    assert out["criterion"]["defined"] is False
    assert out["commit"]  # kept with --yes, and said to be unproved
    summary = summary_of(repo)
    assert summary["outcome"] == "unverified"
    assert any(n.startswith("unverified:") for n in summary["notes"])


def test_the_users_test_command_is_shown_before_the_first_edit(
    script_repo: Path, script: Script
) -> None:
    replies = script([FIX_MAIN, "fix(main): sum"])
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(script_repo), "--task", SCRIPT_TASK, "--model", f"scripted:{replies}",
         "--yes", "--test-cmd", "python3 test_main.py"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "done when: `python3 test_main.py` exits 0" in result.output


def test_the_test_file_in_the_test_command_is_read_only(
    script_repo: Path, script: Script, shop: Any
) -> None:
    cheat = sr("test_main.py", "assert add(2, 3) == 5, f'add(2, 3) gave {add(2, 3)}'", "pass")
    code, out = shop.run(
        script_repo, SCRIPT_TASK, script([cheat] * 8), "--test-cmd", "python3 test_main.py"
    )
    assert (code, out["outcome"]) == (1, "failed")
    assert (script_repo / "test_main.py").read_text() == TEST_MAIN


def test_free_retries_share_one_budget_per_run(
    script_repo: Path, script: Script, shop: Any
) -> None:
    junk = "I would change the add function to return the sum."
    code, out = shop.run(
        script_repo, SCRIPT_TASK, script([junk] * 12), "--test-cmd", "python3 test_main.py",
        "--max-iter", "3",
    )  # fmt: skip
    assert (code, out["outcome"]) == (1, "failed")
    assert out["retries"] == 3  # the default budget, not three per iteration
    assert out["calls"] == 3 + 3


def test_best_of_k_keeps_the_candidate_that_meets_the_criterion(
    script_repo: Path, script: Script, shop: Any
) -> None:
    replies = script([COMMENT_ONLY, FIX_MAIN, "fix(main): sum"])
    code, out = shop.run(
        script_repo, SCRIPT_TASK, replies, "--test-cmd", "python3 test_main.py",
        "--candidates", "2", "--max-iter", "1",
    )  # fmt: skip
    assert (code, out["outcome"], out["iterations"], out["candidates"]) == (0, "solved", 1, 2)
    assert (script_repo / "main.py").read_text() == MAIN_FIXED


def test_an_already_green_test_command_cannot_prove_the_task(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "green", {"main.py": MAIN_FIXED, "check.py": "print('ok')\n"})
    replies = script([sr("main.py", "def add(a, b):", "def add(a, b):  # sum"), "docs: note"])
    code, out = shop.run(repo, "Comment add in main.py", replies, "--test-cmd", "python3 check.py")
    assert (code, out["outcome"]) == (4, "unverified")
    assert out["criterion"]["already_met"] == ["python3 check.py"]
    assert any("already exits 0" in n for n in summary_of(repo)["notes"])


def test_the_repository_keeps_no_trace_of_a_failed_run(
    script_repo: Path, script: Script, shop: Any
) -> None:
    shop.run(
        script_repo,
        SCRIPT_TASK,
        script([COMMENT_ONLY, OTHER_COMMENT]),
        "--test-cmd",
        "python3 test_main.py",
    )
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=script_repo, capture_output=True, text=True
    ).stdout
    assert status.strip() == ""


HEF_TEST = (
    "from calc import *  # noqa: F403\n\n\ndef check(add):\n    assert add(2, 3) == 5\n\n\n"
    "check(add)\n\n\ndef test_check():\n    check(add)\n"
)


def test_a_test_module_that_failed_at_import_is_solved_when_its_tests_then_pass(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix's shape: the check runs at import, so the baseline failure is the
    module's collection error; once fixed, that id is gone and test_check passes instead."""
    repo = shop.make_repo(tmp_path / "hef", {"calc.py": CALC, "test_calc.py": HEF_TEST})
    replies = script([FIX_CALC, "fix(calc): add returns the sum"])
    code, out = shop.run(repo, PYTEST_TASK, replies, "--test-cmd", "python3 -m pytest -q")
    assert (code, out["outcome"], out["iterations"]) == (0, "solved", 1), out
    assert out["criterion"]["must_pass"] == ["test_calc.py"]
    assert (repo / "calc.py").read_text() == CALC_FIXED
