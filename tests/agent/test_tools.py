"""The agent's built-in tools, on a real repository: what each returns to the model, and that
a bad call is an observation the model can act on — never an exception that stops the agent.
The role jail is code: a role's ToolBox refuses a tool it was not given."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from patchwright.agent.checker import Check
from patchwright.agent.criterion import Verdict
from patchwright.agent.roles import ALLOWED, ROLES, toolbox
from patchwright.agent.tools import Observation, Workbench, builtin_tools
from patchwright.agent.working_copy import WorkingCopy
from patchwright.llm import ToolCall
from patchwright.sandbox import Sandbox
from patchwright.verify import GateResult
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file

CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
FIX = (
    "calc.py\n```\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\n"
    "def add(a, b):\n    return a + b\n>>>>>>> REPLACE\n```\n"
)


class Bench:
    """A workbench over ``root`` whose checks are scripted; it records syncs and the
    commands it was asked to approve."""

    def __init__(self, root: Path, checks: Sequence[Check] = (), approve: bool = False) -> None:
        self.root, self.checks, self.approve = root, list(checks), approve
        self.synced, self.asked = 0, list[str]()

        def read(path: str) -> TextFile | None:
            target = confine(root, path)
            return read_text_file(target) if target.is_file() else None

        files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
        working = WorkingCopy(files, read, lambda p: None, protected=["test_calc.py"])
        self.bench = Workbench(root, working, Sandbox(root), self._check, sync=self._sync,
                               approve_command=self._approve, test_cmd=None)  # fmt: skip
        self.tools = builtin_tools(self.bench)

    def _check(self, touched: Sequence[str]) -> Check:
        return self.checks.pop(0)

    def _sync(self) -> None:
        self.synced += 1

    def _approve(self, command: str, why: str) -> bool:
        self.asked.append(command)
        return self.approve

    def call(self, name: str, **arguments: object) -> Observation:
        return toolbox("coder", self.tools, ()).call(ToolCall("c1", name, dict(arguments)))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n"
                                           "    assert add(2, 3) == 5\n")  # fmt: skip
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("# Calc\n")
    return tmp_path


def test_read_file_numbers_lines_and_reads_on_from_where_it_stopped(repo: Path) -> None:
    (repo / "long.py").write_text("".join(f"x{i} = {i}\n" for i in range(1, 501)))
    b = Bench(repo)
    first = b.call("read_file", path="./calc.py")
    assert first.ok and first.text.splitlines()[:3] == ["calc.py", "    1  def add(a, b):",
                                                         "    2      return a - b"]  # fmt: skip
    long = b.call("read_file", path="long.py")
    assert "[lines 1-400 of 500; read on with start=401]" in long.text
    rest = b.call("read_file", path="long.py", start="401")
    assert "  401  x401 = 401" in rest.text and "read on" not in rest.text


def test_a_missing_file_is_an_observation_with_the_closest_name(repo: Path) -> None:
    obs = Bench(repo).call("read_file", path="calcs.py")
    assert not obs.ok and obs.text == "read_file: calcs.py does not exist; did you mean calc.py?"


def test_listing_and_finding_files_see_the_change_in_progress(repo: Path) -> None:
    b = Bench(repo)
    assert b.call("list_files").text.splitlines() == ["calc.py", "docs/guide.md", "test_calc.py"]
    assert b.call("list_files", glob="*.md").text == "docs/guide.md"
    b.call("write_file", path="docs/api.md", content="# API\n")
    b.call("delete_file", path="docs/guide.md")
    assert b.call("list_files", glob="*.md").text == "docs/api.md"
    assert b.call("find_file", query="api").text.splitlines()[0] == "docs/api.md"
    assert b.call("list_files", glob="*.rs").text == "no file matches"


def test_an_edit_applies_in_memory_syncs_once_and_shows_its_diff(repo: Path) -> None:
    b = Bench(repo)
    obs = b.call("edit", edits=FIX)
    assert obs.ok and obs.text.startswith("applied to calc.py")
    assert "-    return a - b\n+    return a + b" in obs.text
    assert b.synced == 1
    assert (b.bench.working.text("calc.py") or "").startswith("def add(a, b):\n    return a + b")
    assert (repo / "calc.py").read_text() == CALC  # the disk is the transaction's job


def test_an_edit_that_does_not_apply_changes_nothing_and_says_why(repo: Path) -> None:
    b = Bench(repo)
    obs = b.call("edit", edits=FIX.replace("return a - b\n=", "return a * b\n="))
    assert not obs.ok and obs.text.startswith("nothing was changed:")
    assert b.synced == 0 and b.bench.working.changed_paths() == []


def test_the_tests_the_task_must_pass_cannot_be_rewritten(repo: Path) -> None:
    b = Bench(repo)
    obs = b.call("write_file", path="test_calc.py", content="def test_add():\n    pass\n")
    assert not obs.ok and "holds the tests the task must make pass" in obs.text
    assert not b.call("delete_file", path="test_calc.py").ok
    assert b.bench.working.changed_paths() == []


def test_run_runs_in_the_sandbox_and_reports_the_exit_code(repo: Path) -> None:
    b = Bench(repo)
    obs = b.call("run", command="python3 -c 'import sys; print(\"hi\"); sys.exit(3)'")
    assert not obs.ok and obs.text.startswith("exit code 3") and "stdout:\nhi" in obs.text
    assert b.call("run", command="echo ok").text == "exit code 0\nstdout:\nok"


def test_commands_the_policy_questions_wait_for_the_person_and_some_never_run(
    repo: Path,
) -> None:
    refused = Bench(repo, approve=False)
    obs = refused.call("run", command="pip install requests")
    assert not obs.ok and "needs the user's approval, and it was not given" in obs.text
    assert refused.asked == ["pip install requests"]
    never = Bench(repo, approve=True)
    obs = never.call("run", command="sudo ls")
    assert not obs.ok and obs.text.startswith("refused by policy (privilege-escalation)")
    assert never.asked == []  # forbidden: not even asked
    assert not refused.call("run", command="   ").ok


def test_run_tests_reports_the_gates_and_the_criterion_on_the_change(repo: Path) -> None:
    passed = [GateResult("tests", "passed")]
    checks = [
        Check([GateResult("lint", "failed", output="calc.py:1: E999")]),
        Check(passed, Verdict(False, ["test_add"], "assert add(2, 3) == 5")),
        Check(passed, Verdict(True)),
        Check([GateResult("tests", "could_not_run", reason="pytest is not installed")]),
    ]
    b = Bench(repo, checks)
    failed = b.call("run_tests")
    assert not failed.ok and failed.text.startswith("not done yet:")
    assert not b.call("run_tests").ok
    assert b.call("run_tests").text == "all gates passed and the task's check passes"
    blocked = b.call("run_tests")
    assert not blocked.ok and "not a problem of your change" in blocked.text
    chosen = b.call("run_tests", targets=["test_calc.py::test_add"])
    assert not chosen.ok and "need a pytest test command" in chosen.text


def test_hand_overs_carry_their_data_and_refuse_empty_ones() -> None:
    tools = builtin_tools(Workbench(Path("."), WorkingCopy([], lambda p: None, lambda p: None),
                                    Sandbox(Path(".")), lambda t: Check()))  # fmt: skip
    plan = tools["submit_plan"].run({"steps": ["fix add", " "], "files": "calc.py"})
    assert (plan.control, dict(plan.data)) == ("plan", {"steps": ["fix add"], "files": ["calc.py"]})
    assert tools["finish"].run({}).data == {"summary": "(no summary)"}
    approve = tools["approve"].run({"commit_message": " fix(calc): add adds "})
    assert (approve.control, approve.data["commit_message"]) == ("approve", "fix(calc): add adds")
    box = toolbox("reviewer", tools)
    empty = box.call(ToolCall("c", "reject", {"reasons": "  "}))
    assert not empty.ok and "reasons is empty" in empty.text and empty.control is None


def test_each_role_gets_only_its_tools_and_a_refused_call_names_the_allowed_ones(
    repo: Path,
) -> None:
    tools = Bench(repo).tools
    for role in ROLES:
        assert set(toolbox(role, tools).tools) == set(ALLOWED[role])
    planner = toolbox("planner", tools)
    obs = planner.call(ToolCall("c", "edit", {"edits": FIX}))
    assert not obs.ok and obs.text.startswith("edit is not available here; use one of: find_file")
    assert "submit_plan" in obs.text and "write_file" not in obs.text
    assert (repo / "calc.py").read_text() == CALC


def test_a_bad_argument_or_a_broken_tool_is_an_observation(repo: Path) -> None:
    b = Bench(repo)
    assert b.call("read_file").text == "read_file: missing argument 'path'"
    assert b.call("read_file", path="calc.py", start="x").text == (
        "read_file: argument 'start' must be int, got str"
    )
    index_less = b.call("symbols", path="calc.py")
    assert not index_less.ok and "the code index is not available" in index_less.text


def test_run_tests_on_chosen_ids_stops_at_the_run_s_test_timeout(repo: Path) -> None:
    (repo / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n    time.sleep(120)\n")
    b = Bench(repo)
    b.bench.test_cmd, b.bench.test_timeout = f"{sys.executable} -m pytest -q", 2.0
    obs = b.call("run_tests", targets=["test_slow.py::test_slow"])
    assert not obs.ok and "timed out" in obs.text  # not the run tool's 300 s
