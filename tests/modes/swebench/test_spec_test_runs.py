"""Specification of running tests in an instance's environment: the official command on the
test patch's files, coverage.py with per-test contexts wrapped around pytest runs only, a
patch applied the harness's way (``git apply``, then ``patch --fuzz``) and undone, the test
patch on disk only for the run, and a run's report saying when it read no outcome at all."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from swebench_case import git

from patchwright.envs import InstallSpec, host_environment
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.tests import (
    COVERAGE_RC,
    PatchError,
    git_apply,
    run_tests,
    with_coverage,
)
from patchwright.modes.swebench.tests import test_command as official_command  # not collected
from patchwright.modes.swebench.tests import test_patch_applied as hidden_tests_applied

LINES = "".join(f"line {n}\n" for n in range(1, 11))
TEST_PATCH = """diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1,2 @@
+def test_new():
+    assert True
diff --git a/tests/data/case.json b/tests/data/case.json
new file mode 100644
--- /dev/null
+++ b/tests/data/case.json
@@ -0,0 +1 @@
+{}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "notes.txt").write_text(LINES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def edit_patch(old: str, new: str, context_before: str = "line 4") -> str:
    return (
        "--- a/notes.txt\n+++ b/notes.txt\n@@ -4,3 +4,3 @@\n"
        f" {context_before}\n-{old}\n+{new}\n line 6\n"
    )


# -- commands -----------------------------------------------------------------------------


def test_the_official_command_runs_the_test_patch_s_test_files_only() -> None:
    instance = Instance("o__r-1", "o/r", "abc", "issue", TEST_PATCH)
    spec = InstallSpec(test_cmd="pytest --no-header -rA")
    assert official_command(spec, instance, None) == "pytest --no-header -rA tests/test_new.py"


def test_a_pytest_run_is_wrapped_in_coverage_with_per_test_contexts(tmp_path: Path) -> None:
    data = tmp_path / "sbfl dir" / ".coverage"
    data.parent.mkdir()
    command = with_coverage("pytest -rA tests/test_a.py::test_x", data)
    rc = data.parent / "coveragerc"
    assert shlex.split(command) == [
        f"COVERAGE_FILE={data}", "python", "-m", "coverage", "run", f"--rcfile={rc}",
        "-m", "pytest", "-rA", "tests/test_a.py::test_x",
    ]  # fmt: skip
    assert rc.read_text() == COVERAGE_RC
    assert "dynamic_context = test_function" in COVERAGE_RC


def test_leading_environment_assignments_stay_in_front(tmp_path: Path) -> None:
    data = tmp_path / ".coverage"
    words = shlex.split(with_coverage("PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 py.test -rA t.py", data))
    assert words[:2] == ["PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", f"COVERAGE_FILE={data}"]
    assert words[-3:] == ["pytest", "-rA", "t.py"]


@pytest.mark.parametrize(
    "command",
    ["./tests/runtests.py --verbosity 2 queries", "bin/test -C sympy/core", "X=1", ""],
)
def test_runs_that_are_not_pytest_are_left_as_they_are(tmp_path: Path, command: str) -> None:
    assert with_coverage(command, tmp_path / ".coverage") == command
    assert not (tmp_path / "coveragerc").exists()


def test_no_coverage_file_means_no_coverage() -> None:
    assert with_coverage("pytest -rA t.py", None) == "pytest -rA t.py"


# -- patches ------------------------------------------------------------------------------


def test_a_patch_applies_and_reverses(repo: Path) -> None:
    patch = edit_patch("line 5", "line five")
    git_apply(repo, patch)
    assert "line five\n" in (repo / "notes.txt").read_text()
    git_apply(repo, patch, reverse=True)
    assert (repo / "notes.txt").read_text() == LINES


def test_a_check_only_tries_the_patch(repo: Path) -> None:
    git_apply(repo, edit_patch("line 5", "line five"), check=True)
    assert (repo / "notes.txt").read_text() == LINES
    with pytest.raises(PatchError):
        git_apply(repo, edit_patch("line 50", "x"), check=True)


def test_a_stale_context_line_is_applied_with_fuzz_as_the_harness_does(repo: Path) -> None:
    stale = edit_patch("line 5", "line five", context_before="line four (edited upstream)")
    git_apply(repo, stale)
    assert (repo / "notes.txt").read_text() == LINES.replace("line 5\n", "line five\n")
    assert sorted(p.name for p in repo.iterdir()) == [".git", "notes.txt"]  # no .orig backup


def test_a_patch_that_cannot_apply_raises_and_leaves_the_file(repo: Path) -> None:
    with pytest.raises(PatchError):
        git_apply(repo, "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n-nope\n-nada\n+x\n+y\n")
    assert (repo / "notes.txt").read_text() == LINES


def test_a_patch_that_does_not_apply_leaves_the_checkout_as_it_was(repo: Path) -> None:
    half = (
        "--- a/notes.txt\n+++ b/notes.txt\n"
        "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+line three\n line 4\n"
        "@@ -8,3 +8,3 @@\n line 8\n-nope\n+x\n line 10\n"
    )
    with pytest.raises(PatchError):
        git_apply(repo, half)
    assert git(repo, "status", "--porcelain") == ""


def test_an_empty_patch_changes_nothing(repo: Path) -> None:
    git_apply(repo, "  \n")
    assert git(repo, "status", "--porcelain") == ""


def test_the_test_patch_is_on_disk_only_during_the_run(repo: Path) -> None:
    with hidden_tests_applied(repo, TEST_PATCH):
        assert (repo / "tests" / "test_new.py").is_file()
    assert not (repo / "tests" / "test_new.py").exists()
    with pytest.raises(KeyboardInterrupt), hidden_tests_applied(repo, TEST_PATCH):
        raise KeyboardInterrupt
    assert git(repo, "status", "--porcelain") == ""


# -- a run's report -------------------------------------------------------------------------


def test_a_run_reads_its_log_and_runs_with_what_is_staged(repo: Path) -> None:
    env = host_environment(repo.parent, repo)
    command = ("test -f tests/test_new.py && echo 'PASSED tests/test_new.py::test_new'; "
               "echo 'FAILED tests/test_old.py::test_old - boom'; exit 1")  # fmt: skip
    report = run_tests(env, "o/r", command, staged=hidden_tests_applied(repo, TEST_PATCH))
    assert report.status == {"tests/test_new.py::test_new": "PASSED",
                             "tests/test_old.py::test_old": "FAILED"}  # fmt: skip
    assert (report.exit_code, report.parser, report.problem) == (1, "pytest -rA", None)
    assert report.command == command and "boom" in report.log
    assert not (repo / "tests" / "test_new.py").exists()


def test_a_run_with_no_outcome_in_its_log_says_so(repo: Path) -> None:
    env = host_environment(repo.parent, repo)
    report = run_tests(env, "o/r", "echo 'ImportError: no module named pkg' >&2; exit 4")
    assert report.status == {}
    assert report.problem == "no test outcome could be read from the log (exit 4)"
    assert "ImportError" in report.log  # stderr is part of the log
