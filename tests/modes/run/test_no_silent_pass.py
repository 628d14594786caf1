"""A check that did not run never passes: ``patchwright run`` stops before its first model call
when the task's commands cannot start, stops (repository restored) when a gate cannot run, and
never calls a task ``solved`` on a check that already held before any change — on both
strategies. Real git repositories, real tools, scripted replies."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from patchwright.cli import app

Script = Callable[[list[str]], Path]
MAIN = "def add(a, b):\n    return a - b\n"
CALC = "def add(a, b):\n    return a + b\n"
FAILING_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n"
TYPED = '"""Settings."""\n\nx: int = 1\n'


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"id": f"c_{name}", "name": name,
                                            "arguments": arguments}]}  # fmt: skip


def record(repo: Path) -> dict[str, Any]:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    return dict(json.loads((run_dir / "summary.json").read_text()))


def model_replies(repo: Path) -> int:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    return sum(1 for line in lines if json.loads(line)["kind"] == "model.reply")


def test_a_test_command_that_cannot_start_stops_the_run_before_any_model_call(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "adder", {"main.py": MAIN})
    before = shop.fingerprint(repo)
    replies = script([sr("main.py", "    return a - b", "    return a + b"), "fix: sum"])
    code, out = shop.run(repo, "Fix add in main.py", replies, "--test-cmd", "nonexistent-runner")
    assert (code, out["outcome"]) == (2, "error"), out
    assert (
        "cannot start" in out["error"] and "nonexistent-runner: command not found" in out["error"]
    )
    assert "--test-cmd" in out["error"]  # what to do
    summary = record(repo)
    assert (summary["calls"], summary["outcome"]) == (0, "error")  # no model call was spent
    assert shop.fingerprint(repo) == before


def test_a_done_when_command_that_cannot_start_stops_the_run_before_any_model_call(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "adder", {"main.py": MAIN})
    replies = script([sr("main.py", "    return a - b", "    return a + b"), "fix: sum"])
    code, out = shop.run(
        repo, "Fix add in main.py", replies, "--done-when", "no-such-checker --all"
    )
    assert (code, out["outcome"]) == (2, "error"), out
    assert "--done-when `no-such-checker --all` cannot start" in out["error"]
    assert record(repo)["calls"] == 0

    # a script of the repository that the task may write is not refused
    fix = script([sr("main.py", "    return a - b", "    return a + b")] * 8)
    code, out = shop.run(repo, "Fix add in main.py", fix, "--done-when", "./check.sh")
    assert (code, out["outcome"]) == (1, "failed"), out["reason"]
    assert out["criterion"]["remaining"] == ["./check.sh"]


def test_a_check_that_already_holds_cannot_make_a_comment_solved(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {"calc.py": CALC, "notes.py": "x = 1\n", "tests/test_calc.py": FAILING_TEST,
             "conftest.py": ""}  # fmt: skip
    repo = shop.make_repo(tmp_path / "calc", files)
    comment = sr("notes.py", "x = 1", "# the first note\nx = 1")
    code, out = shop.run(repo, "Say what notes.py is for.", script([comment, "docs: note"]),
                    "--done-when", "true")  # fmt: skip
    assert out["outcome"] != "solved" and code != 0, out
    assert (code, out["outcome"]) == (4, "unverified")
    criterion = out["criterion"]
    assert criterion["already_met"] == ["true"] and criterion["proves"] is False
    assert "`true` exits 0 (already before any change)" in criterion["description"]
    assert "cannot prove the task" in " ".join(criterion["notes"])
    assert criterion["met"] is True and criterion["proved"] is False
    notes = " ".join(record(repo)["notes"])
    assert "unverified: the task's check already held before any change" in notes


def test_the_done_when_line_says_so_before_the_first_edit(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "adder", {"main.py": MAIN})
    replies = script([sr("main.py", "    return a - b", "    return a + b"), "fix: sum"])
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(repo), "--task", "Fix add in main.py", "--model",
         f"scripted:{replies}", "--yes", "--done-when", "true"],
    )  # fmt: skip
    assert result.exit_code == 4, result.output
    assert "done when: `true` exits 0 (already before any change); none of it can prove" in (
        " ".join(result.output.split())
    )


def test_a_run_whose_type_checker_crashes_keeps_nothing(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {"mypy.ini": "[mypy]\nplugins = nonexistent_plugin\n", "settings.py": TYPED}
    repo = shop.make_repo(tmp_path / "typed", files)
    before, head = shop.fingerprint(repo), shop.git(repo, "rev-parse", "HEAD")
    oops = sr("settings.py", "x: int = 1", 'x: int = 1\ny: int = "oops"')
    code, out = shop.run(repo, "Add a setting y to settings.py.", script([oops, "feat: y", oops]),
                    "--done-when", "python3 -c 'import settings; settings.y'")  # fmt: skip
    assert (code, out["outcome"]) == (1, "error"), out
    assert "the types gate could not run" in out["reason"]
    assert 'Error importing plugin "nonexistent_plugin"' in out["reason"]
    assert "not the change's fault" in out["reason"]
    assert record(repo)["gates"]["types"] == "could_not_run"
    assert model_replies(repo) == 1  # not fed back to the model as a repair
    assert shop.fingerprint(repo) == before
    assert shop.git(repo, "rev-parse", "HEAD") == head


def test_the_agent_strategy_stops_the_same_way(tmp_path: Path, shop: Any, script: Script) -> None:
    files = {"mypy.ini": "[mypy]\nplugins = nonexistent_plugin\n", "settings.py": TYPED}
    repo = shop.make_repo(tmp_path / "typed", files)
    before, head = shop.fingerprint(repo), shop.git(repo, "rev-parse", "HEAD")
    oops = sr("settings.py", "x: int = 1", 'x: int = 1\ny: int = "oops"')
    steps = tmp_path / "steps.jsonl"
    entries = [call("edit", edits=oops), call("finish", summary="added y"),
               call("approve", commit_message="feat: y")]  # fmt: skip
    steps.write_text("".join(json.dumps(e) + "\n" for e in entries))
    code, out = shop.run(repo, "Add a setting y to settings.py.", steps, "--strategy", "agent",
                    "--no-plan", "--done-when", "python3 -c 'import settings; settings.y'")  # fmt: skip
    assert (code, out["outcome"]) == (1, "error"), out
    assert "the types gate could not run" in out["reason"]
    assert out["calls"] == 2  # the coder's two steps; no reviewer was asked
    assert shop.fingerprint(repo) == before
    assert shop.git(repo, "rev-parse", "HEAD") == head


def test_the_agent_strategy_does_not_call_a_change_solved_on_a_check_that_held(
    tmp_path: Path, shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "adder", {"main.py": MAIN})
    steps = tmp_path / "steps.jsonl"
    comment = sr("main.py", "def add(a, b):", "# add two numbers\ndef add(a, b):")
    entries = [call("edit", edits=comment), call("finish", summary="documented"),
               call("approve", commit_message="docs: add")]  # fmt: skip
    steps.write_text("".join(json.dumps(e) + "\n" for e in entries))
    code, out = shop.run(repo, "Document add in main.py", steps, "--strategy", "agent", "--no-plan",
                    "--done-when", "true")  # fmt: skip
    assert (code, out["outcome"]) == (4, "unverified"), out


BROKEN_HELPERS = "from calc import subtract  # renamed away\n"
USES_HELPER = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def test_a_suite_broken_before_the_change_is_the_models_to_mend_not_a_stop(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """conftest.py cannot import its helpers, so pytest writes no report before any change.
    A first reply that leaves it broken is answered with pytest's error, not a stopped run;
    the second mends it and the task is solved."""
    files = {"calc.py": CALC, "helpers.py": BROKEN_HELPERS, "conftest.py": "import helpers\n",
             "tests/test_calc.py": USES_HELPER}  # fmt: skip
    repo = shop.make_repo(tmp_path / "broken", files)
    replies = script([
        sr("calc.py", "def add(a, b):", "# adds\ndef add(a, b):"),
        sr("helpers.py", "from calc import subtract  # renamed away", "from calc import add"),
        "fix: conftest imports nothing missing",
    ])  # fmt: skip
    code, out = shop.run(repo, "The test suite fails to start: helpers.py imports a name calc "
                    "no longer has. Fix it.", replies,
                    "--test-cmd", "python -m pytest -q")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), out["reason"]
    assert out["iterations"] == 2, out
    assert (repo / "helpers.py").read_text() == "from calc import add\n"
