"""The baseline and the helpers the gates use to find and judge their tools, specified.

The baseline keeps the pre-edit text of each checkable source file (not binaries, not files
over 1 MB, which it only knows existed), so a gate can check the old text of a touched file;
a file it did not keep has an unknown baseline, and its problems count as new, with a note.
Its failure output is what the agent's first prompt says already fails. The tool helpers say
why a tool run is unusable (blocked, timed out, killed, never started) in the tool's own
words, and find where a repository configures ruff, mypy and pytest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from patchwright.sandbox import ExecResult, Sandbox
from patchwright.verify import Baseline, SyntaxGate, run_gates, take_baseline
from patchwright.verify.baseline import MAX_FILE_BYTES, snapshot_texts
from patchwright.verify.lint import has_ruff_config
from patchwright.verify.testmodel import TestCase, TestRun
from patchwright.verify.tools import (
    could_not_start,
    describe_failure,
    ini_section,
    pyproject_tool,
    repo_python,
    said,
    scratch_copies,
    stable,
    tail,
    unusable,
)
from patchwright.verify.typecheck import has_type_hints, mypy_configured


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox(tmp_path)
    yield sandbox
    sandbox.close()


# -- what the baseline keeps ----------------------------------------------------------------


def test_the_baseline_keeps_checkable_sources_and_only_lists_the_rest(tmp_path: Path) -> None:
    write(tmp_path, {"a.py": "x = 1\n", "web/app.TS": "let x = 1\n", "README.md": "# hi\n",
                     "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00", "go.sum": "h1:abc\n"})  # fmt: skip
    texts, paths = snapshot_texts(tmp_path)
    assert texts == {"a.py": "x = 1\n", "web/app.TS": "let x = 1\n", "go.sum": "h1:abc\n"}
    assert {"README.md", "logo.png", "a.py"} <= paths


def test_a_source_file_too_large_to_keep_has_an_unknown_baseline(tmp_path: Path) -> None:
    write(tmp_path, {"big.json": "[" + "1," * (MAX_FILE_BYTES // 2) + "1]", "small.json": "{}"})
    texts, paths = snapshot_texts(tmp_path)
    base = Baseline(root=tmp_path, texts=texts, paths=paths)
    assert "big.json" in paths and "big.json" not in texts
    assert not base.knows("big.json") and base.old_text("big.json") is None
    assert base.knows("small.json") and base.old_text("small.json") == "{}"
    assert base.knows("new.py") and base.old_text("new.py") is None  # absent: no old problems


def test_a_file_with_an_unknown_baseline_counts_its_problems_as_new_and_says_so(
    tmp_path: Path, box: Sandbox
) -> None:
    write(tmp_path, {"big.json": "[" + "1," * (MAX_FILE_BYTES // 2) + "1", "ok.json": "{}"})
    base = take_baseline(tmp_path, box)  # big.json is already broken, but not kept
    [result] = run_gates(tmp_path, box, base, touched=["big.json"], gates=[SyntaxGate()])
    assert result.status == "failed"
    assert [p.path for p in result.new_problems] == ["big.json"]
    assert result.reason == "no baseline for big.json (not kept), its problems count as new"


def test_a_baseline_without_a_test_runner_runs_no_tests(tmp_path: Path, box: Sandbox) -> None:
    write(tmp_path, {"notes.txt": "nothing to test\n"})
    base = take_baseline(tmp_path, box)
    assert base.tests is None and base.test_cmd is None
    assert base.failing_tests == frozenset() and base.failure_output == ""
    assert base.root == tmp_path.resolve() and base.seconds >= 0


# -- what already failed, as the first prompt says it ---------------------------------------


def base_with(run: TestRun) -> Baseline:
    return Baseline(root=Path("."), texts={}, paths=frozenset(), tests=run)


def test_a_green_or_unstartable_baseline_has_nothing_to_report() -> None:
    assert base_with(TestRun("pytest", 0, "all good")).failure_output == ""
    unstarted = TestRun("jest", 127, "jest: not found", missing_tool="jest: command not found")
    assert base_with(unstarted).failure_output == ""


def test_failing_baseline_tests_are_listed_by_id_in_order() -> None:
    run = TestRun("pytest", 1, "")
    run.cases = {"t.py::b": TestCase("t.py::b", "failed", message="assert 1 == 2"),
                 "t.py::a": TestCase("t.py::a", "error"),
                 "t.py::c": TestCase("t.py::c", "passed")}  # fmt: skip
    base = base_with(run)
    assert base.failing_tests == {"t.py::a", "t.py::b"}
    assert base.failure_output.splitlines() == [
        "- error: t.py::a", "- failed: t.py::b", "    assert 1 == 2"]  # fmt: skip


def test_a_red_baseline_without_per_test_outcomes_says_how_it_ended_without_pytests_header() -> (
    None
):
    output = "=== test session starts ===\nplatform linux -- Python 3.11\nboom: it broke"
    exited = base_with(TestRun("make check", 2, output))
    assert exited.failure_output == "make check exited 2:\nboom: it broke"
    broken = base_with(TestRun("make check", None, "", problem="timed out after 600s"))
    assert broken.failure_output == "make check timed out after 600s:\n"


# -- why a tool run is unusable -------------------------------------------------------------


def test_a_tool_run_that_was_blocked_timed_out_or_killed_says_so() -> None:
    assert describe_failure(ExecResult(None, "", "", blocked_by="network")) == (
        "the sandbox blocked it (network)"
    )
    assert describe_failure(ExecResult(None, "", "", timed_out=True, seconds=119.6)) == (
        "timed out after 120s"
    )
    assert describe_failure(ExecResult(None, "", "", killed_by="signal:SIGKILL")) == (
        "killed (signal:SIGKILL)"
    )
    assert describe_failure(ExecResult(1, "", "lint errors")) is None  # a verdict, not a failure


def test_a_command_that_never_started_is_told_by_its_exit_code_or_the_wrappers_error() -> None:
    assert could_not_start(ExecResult(127, "", "sh: 1: ruff: not found\n")) == (
        "sh: 1: ruff: not found"
    )
    assert could_not_start(ExecResult(126, "", "")) == "not executable (exit 126)"
    assert could_not_start(ExecResult(1, "", "bwrap: execvp mypy: No such file or directory")) == (
        "bwrap: execvp mypy: No such file or directory"
    )
    assert could_not_start(ExecResult(1, "", "error: E501")) is None


def test_an_unusable_run_is_named_with_the_tool_and_what_it_said() -> None:
    said_ = unusable(
        "ruff", ExecResult(None, "", "partial\nlast words", timed_out=True, seconds=60)
    )
    assert said_ == "ruff timed out after 60s: partial\nlast words"
    # the shell's words are the reason already: not repeated
    assert (
        unusable("ruff", ExecResult(127, "", "sh: ruff: not found")) == "ruff sh: ruff: not found"
    )
    assert unusable("ruff", ExecResult(0, "[]", "")) is None


def test_tail_keeps_the_last_lines_within_a_character_budget() -> None:
    text = "\n".join(f"line {i}" for i in range(100)) + "\n\n"
    assert tail(text, 2) == "line 98\nline 99"
    assert tail(text, 2, chars=5) == "ne 99"


def test_output_shown_to_the_model_is_stable_and_free_of_the_session_header() -> None:
    assert stable("<function f at 0x7f3a9c1b2d30> at 0x12") == "<function f at 0x…> at 0x12"
    header = ("============ test session starts ============\nplatform linux -- Python 3.11.7\n"
              "rootdir: /r\nplugins: anyio-4\ncollecting ... collected 3 items\nFAILED t.py::a")  # fmt: skip
    assert said(header) == "FAILED t.py::a"


# -- where a repository configures its tools ------------------------------------------------


def test_ruff_is_configured_by_its_own_files_or_a_tool_ruff_table_up_the_tree(
    tmp_path: Path,
) -> None:
    inner = tmp_path / "pkg" / "sub"
    inner.mkdir(parents=True)
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n"})
    assert not has_ruff_config(inner)
    write(tmp_path, {"pyproject.toml": "[tool.ruff.lint]\nselect = ['E']\n"})
    assert has_ruff_config(inner)
    (tmp_path / "pyproject.toml").unlink()
    write(tmp_path, {"pkg/.ruff.toml": "line-length = 100\n"})
    assert has_ruff_config(inner)


@pytest.mark.parametrize(
    ("files", "where"),
    [
        ({"mypy.ini": "[mypy]\n"}, "mypy.ini"),
        ({".mypy.ini": "[mypy]\n"}, ".mypy.ini"),
        ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"}, "pyproject.toml [tool.mypy]"),
        ({"setup.cfg": "[metadata]\nname = x\n[mypy]\n"}, "setup.cfg [mypy]"),
        ({"src/pkg/py.typed": ""}, "a py.typed marker"),
        ({"pyproject.toml": "[tool.ruff]\n", "setup.cfg": "[flake8]\n"}, None),
        ({"pyproject.toml": "not = [valid toml"}, None),
    ],
)
def test_where_a_repository_configures_mypy(
    tmp_path: Path, files: dict[str, str | bytes], where: str | None
) -> None:
    assert mypy_configured(write(tmp_path, files)) == where


def test_a_config_file_that_cannot_be_parsed_configures_nothing(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.pytest\n", "setup.cfg": "no section header\n"})
    assert not pyproject_tool(tmp_path, "pytest")
    assert not ini_section(tmp_path / "setup.cfg", "tool:pytest")
    assert not ini_section(tmp_path / "absent.cfg", "tool:pytest")


def test_type_hints_are_found_on_arguments_returns_and_variables_of_any_function() -> None:
    assert has_type_hints("async def f() -> None:\n    pass\n")
    assert has_type_hints("def f(*, key: str):\n    pass\n")
    assert has_type_hints("def f(a, /, b: int):\n    pass\n")
    assert has_type_hints("class C:\n    x: int\n")
    assert not has_type_hints("x = 1  # type: int\n")
    assert not has_type_hints("def f(:\n")  # what does not parse has no hints


def test_the_repositorys_own_virtualenv_runs_its_python_tools(tmp_path: Path) -> None:
    import sys

    assert repo_python(tmp_path) == sys.executable
    python = write(tmp_path, {".venv/bin/python": "#!/bin/sh\n"}) / ".venv" / "bin" / "python"
    assert repo_python(tmp_path) == sys.executable  # not executable: not a virtualenv
    python.chmod(0o755)
    assert repo_python(tmp_path) == str(python)


def test_old_texts_written_for_a_tool_are_gone_afterwards(tmp_path: Path) -> None:
    with scratch_copies(tmp_path, {"pkg/a.py": "x = 1\n"}) as copies:
        copy = copies["pkg/a.py"]
        assert copy.read_text() == "x = 1\n"
        assert ".patchwright" in copy.parts
    assert not copy.exists() and not copy.parent.exists()
