"""Specification of the fair mode's own checks, built from the issue and the repository
alone: which of the repository's test files test the suspects (:mod:`.own_tests`), how a
baseline run splits into tests to keep passing and reproduction tests to make pass, the
agent's test command, the model-written reproduction test (:mod:`.reproduce`) and what
:class:`OwnTests` asks of a candidate (:mod:`.checks`)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from patchwright.envs import InstallSpec, host_environment
from patchwright.modes.swebench.checks import OWN, HiddenTests, OwnTests, failure_excerpt
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.localise import Suspect
from patchwright.modes.swebench.own_tests import (
    MAX_DESELECTED,
    Baseline,
    related_test_files,
    split_status,
)
from patchwright.modes.swebench.propose import MAX_ISSUE_CHARS, Reader
from patchwright.modes.swebench.reproduce import (
    NAME,
    Reproduction,
    free_path,
    messages,
)
from patchwright.modes.swebench.reproduce import (
    test_text as reply_test,  # not collected
)

# -- the repository's own test files ------------------------------------------------------


def test_test_files_named_after_a_module_come_in_every_pytest_spelling() -> None:
    paths = ["pkg/fields.py", "tests/test_fields.py", "tests/fields_test.py",
             "tests/test_fields_extra.py", "tests/test_fieldset.py", "tests/test_other.py"]  # fmt: skip
    found = related_test_files(["pkg/fields.py"], paths, lambda _p: "", limit=10)
    assert found == ["tests/fields_test.py", "tests/test_fields.py", "tests/test_fields_extra.py"]


def test_a_package_s_init_is_tested_by_files_named_after_the_package() -> None:
    paths = ["src/pkg/sub/__init__.py", "tests/test_sub.py", "tests/test_init.py"]
    assert related_test_files(["src/pkg/sub/__init__.py"], paths, lambda _p: "") == [
        "tests/test_sub.py"
    ]


def test_test_files_and_non_python_files_are_not_sources_to_find_tests_for() -> None:
    paths = ["tests/test_api.py", "tests/test_test_api.py", "docs/api.rst", "tests/test_api_rst.py"]
    assert related_test_files(["tests/test_api.py", "docs/api.rst"], paths, lambda _p: "") == []


def test_files_named_after_each_source_come_first_in_source_order_then_importers() -> None:
    files = {
        "pkg/a.py": "",
        "pkg/b.py": "",
        "tests/test_b.py": "",
        "tests/test_a.py": "",
        "tests/test_uses.py": "from pkg.b import thing\n",
        "tests/test_zzz.py": "import json\n",
    }
    found = related_test_files(["pkg/b.py", "pkg/a.py", "pkg/b.py"], list(files), files.get)
    assert found == ["tests/test_b.py", "tests/test_a.py", "tests/test_uses.py"]


def test_at_most_limit_files_are_returned_and_none_are_read_once_it_is_reached() -> None:
    paths = ["m.py", *[f"tests/test_m_{n}.py" for n in range(6)], "tests/test_importer.py"]
    read: list[str] = []

    def reader(path: str) -> str:
        read.append(path)
        return "import m\n"

    assert len(related_test_files(["m.py"], paths, reader)) == 4
    assert read == []


# -- the baseline and the agent's command -------------------------------------------------


def test_the_baseline_splits_repository_tests_from_the_reproduction_s() -> None:
    repro = f"{NAME}.py"
    status = {
        "tests/test_a.py::test_ok": "PASSED",
        "tests/test_a.py::test_known": "XFAIL",
        "tests/test_a.py::test_broken": "FAILED",
        "tests/test_a.py::test_db": "ERROR",
        "tests/test_a.py::test_net": "SKIPPED",
        f"{repro}::test_issue": "FAILED",
        f"{repro}::test_import": "ERROR",  # could not run: not the issue
        f"{repro}::test_fine": "PASSED",
        f"{NAME}1.py::test_other": "PASSED",  # another file, though the name starts alike
    }
    passing, failing, reproducing = split_status(status, repro)
    assert passing == [f"{NAME}1.py::test_other", "tests/test_a.py::test_known",
                       "tests/test_a.py::test_ok"]  # fmt: skip
    assert failing == ["tests/test_a.py::test_broken", "tests/test_a.py::test_db"]
    assert reproducing == [f"{repro}::test_issue"]


def test_without_a_reproduction_every_test_is_the_repository_s() -> None:
    passing, failing, reproducing = split_status({"r.py::t": "FAILED", "a.py::t": "PASSED"}, None)
    assert (passing, failing, reproducing) == (["a.py::t"], ["r.py::t"], [])


def test_the_agent_runs_the_repository_tests_without_those_already_failing() -> None:
    base = Baseline(("tests/test_a.py",), "pytest -rA tests/test_a.py", ("tests/test_a.py::ok",),
                    ("tests/test_a.py::test_p[a b]", "tests/test_a.py::test_q"))  # fmt: skip
    command = base.agent_command()
    assert command is not None
    assert shlex.split(command) == ["pytest", "-rA", "tests/test_a.py",
                                    "--deselect=tests/test_a.py::test_p[a b]",
                                    "--deselect=tests/test_a.py::test_q"]  # fmt: skip


def test_the_agent_command_deselects_at_most_forty_tests() -> None:
    failing = tuple(f"t.py::test_{n}" for n in range(MAX_DESELECTED + 5))
    command = Baseline(("t.py",), "pytest -rA t.py", (), failing).agent_command()
    assert command is not None and command.count("--deselect=") == MAX_DESELECTED == 40


def test_the_agent_command_is_unchanged_without_failures_or_for_other_runners() -> None:
    assert Baseline(("t.py",), "pytest -rA t.py").agent_command() == "pytest -rA t.py"
    django = Baseline(("t",), "./tests/runtests.py --verbosity 2 t", (), ("t.x",))
    assert django.agent_command() == "./tests/runtests.py --verbosity 2 t"
    env_first = Baseline(("t.py",), "PYTHONWARNINGS=x pytest -rA t.py", (), ("t.py::f",))
    assert env_first.agent_command() == "PYTHONWARNINGS=x pytest -rA t.py --deselect=t.py::f"


def test_no_test_files_means_no_agent_command() -> None:
    assert Baseline().agent_command() is None


# -- the reproduction test ----------------------------------------------------------------


def test_the_reproduction_test_takes_a_root_file_name_the_repository_does_not_use() -> None:
    assert free_path(["setup.py", "tests/test_patchwright_reproduction.py"]) == f"{NAME}.py"
    assert free_path([f"{NAME}.py", f"{NAME}1.py"]) == f"{NAME}2.py"


def test_the_test_file_is_the_reply_s_first_fenced_block_holding_a_test() -> None:
    reply = ("Here it is:\n```python\nfrom pkg import f\n\ndef test_issue():\n    assert f()\n```\n"
             "and also\n```python\ndef test_other():\n    pass\n```\n")  # fmt: skip
    assert reply_test(reply) == "from pkg import f\n\ndef test_issue():\n    assert f()\n"
    assert reply_test("```py\ndef test_x(): pass\n```") == "def test_x(): pass\n"


@pytest.mark.parametrize(
    "reply",
    ["def test_x():\n    pass\n", "```python\nprint('no test here')\n```", "```\n```", ""],
)
def test_a_reply_without_a_fenced_test_gives_no_reproduction(reply: str) -> None:
    assert reply_test(reply) is None


def test_the_reproduction_is_on_disk_only_while_staged(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = host_environment(tmp_path, repo)
    repro = Reproduction(f"{NAME}.py", "def test_x():\n    assert False\n")
    with repro.staged(env):
        assert (repo / repro.path).read_text() == repro.text
    assert not (repo / repro.path).exists()
    with pytest.raises(RuntimeError), repro.staged(env):
        raise RuntimeError("a test run broke")
    assert not (repo / repro.path).exists()


def test_the_request_shows_the_issue_cut_and_the_suspects_code_numbered(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n")
    problem = "f() returns 1 " + "x" * MAX_ISSUE_CHARS
    asked = messages(problem, [Suspect("m.py", "f", 1, 2, 1.0)], Reader(tmp_path))
    assert [m["role"] for m in asked] == ["system", "user"]
    user = asked[1]["content"]
    assert "<issue>\n" + problem[:MAX_ISSUE_CHARS] + "\n</issue>" in user
    assert problem not in user
    assert "m.py — f" in user and "    2     return 1" in user


def test_the_request_keeps_the_first_suspect_and_stops_adding_code_past_its_budget(
    tmp_path: Path,
) -> None:
    (tmp_path / "big.py").write_text("".join(f"def f{n}():\n    return {'9' * 300}\n"
                                             for n in range(40)))  # fmt: skip
    suspects = [Suspect("big.py", f"f{n}", 2 * n + 1, 2 * n + 2, 1.0) for n in range(0, 40, 4)]
    user = messages("issue", suspects, Reader(tmp_path))[1]["content"]
    shown = user.count("big.py — ")
    assert 1 <= shown < len(suspects)
    assert "big.py — f0\n" in user


# -- what OwnTests and HiddenTests ask of a candidate ---------------------------------------


def test_own_tests_prove_a_fix_only_with_a_failing_reproduction_test() -> None:
    assert not OwnTests("o/r", "pytest -rA t.py", passing=("t.py::a",)).proves_fix
    assert OwnTests("o/r", "pytest -rA t.py r.py", reproducing=("r.py::t",)).proves_fix
    assert OwnTests("o/r", "").oracle is False


def test_hidden_tests_are_the_oracle_and_always_prove_the_fix() -> None:
    hidden = HiddenTests(Instance("o__r-1", "o/r", "abc", "issue", "patch"), InstallSpec())
    assert hidden.oracle and hidden.proves_fix


def test_own_tests_with_nothing_to_run_pass_without_running(tmp_path: Path) -> None:
    env = host_environment(tmp_path, tmp_path)
    result, problem = OwnTests("o/r", "").run(env, timeout=5)
    assert (result.resolved, result.names, problem) == (True, OWN, None)


def test_own_tests_run_with_the_reproduction_staged_and_grade_both_lists(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = host_environment(tmp_path, repo)
    repro = Reproduction("test_r.py", "def test_issue():\n    assert False\n")
    command = ("test -f test_r.py && echo 'FAILED test_r.py::test_issue - assert False'; "
               "echo 'PASSED tests/test_a.py::test_a'")  # fmt: skip
    checks = OwnTests("o/r", command, ("tests/test_a.py::test_a",), ("test_r.py::test_issue",),
                      repro)  # fmt: skip
    result, problem = checks.run(env, timeout=30)
    assert problem is None
    assert result.f2p_failed == ["test_r.py::test_issue"]  # the file was there for the run
    assert result.p2p_passed == ["tests/test_a.py::test_a"]
    assert result.reason() == "1 REPRODUCTION still failing: test_r.py::test_issue"
    assert not (repo / "test_r.py").exists()


def test_the_failure_shown_to_the_model_is_the_tail_of_pytest_s_failures_section() -> None:
    log = ("collected 3 items\n" + "=" * 10 + " FAILURES " + "=" * 10 + "\n"
           "___ test_issue ___\n    assert mean([1.0, 2.0]) == 1.5\nE   assert 1.0 == 1.5\n"
           "=== short test summary info ===\nFAILED t.py::test_issue\n")  # fmt: skip
    excerpt = failure_excerpt(log)
    assert excerpt.startswith("= FAILURES =") and "E   assert 1.0 == 1.5" in excerpt
    assert "FAILED t.py::test_issue" not in excerpt
    assert failure_excerpt(log, chars=12) == excerpt[-12:]
    assert failure_excerpt("no sections here\n", chars=6) == " here\n"  # the log's tail
