"""One role at work, with scripted tool calls: each call goes through the role's jail, its
observation goes back to the model, and the role ends by handing over, by running out of
steps, or — going round in circles — by being warned once and then stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from patchwright.agent.checker import Check
from patchwright.agent.role_runner import Handover, RoleRunner
from patchwright.agent.tools import Workbench, builtin_tools
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import AgentLoop, Event, EventBus, ToolCall, ToolRefused
from patchwright.llm import Message, ScriptedModel
from patchwright.sandbox import Sandbox
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file

FIX = (
    "calc.py\n```\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n"
    ">>>>>>> REPLACE\n```\n"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"id": f"id_{name}", "name": name,
                                           "arguments": arguments}]}  # fmt: skip


def runner(tmp_path: Path, replies: list[Any]) -> tuple[RoleRunner, list[Event], WorkingCopy]:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")

    def read(path: str) -> TextFile | None:
        target = confine(tmp_path, path)
        return read_text_file(target) if target.is_file() else None

    working = WorkingCopy(["calc.py"], read, lambda p: None, (), ["calc.py"])
    bench = Workbench(tmp_path, working, Sandbox(tmp_path), lambda touched: Check())
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    return RoleRunner(ScriptedModel(replies), builtin_tools(bench), bus), events, working


def brief() -> list[Message]:
    return [{"role": "system", "content": "you are the coder"}, {"role": "user", "content": "fix"}]


def test_the_coder_reads_edits_and_hands_over_with_its_summary(tmp_path: Path) -> None:
    script = [call("read_file", path="calc.py"), call("edit", edits=FIX),
              call("finish", summary="add adds")]  # fmt: skip
    r, events, working = runner(tmp_path, script)
    messages = brief()
    handed = r.run("coder", messages, budget=5)
    assert handed == Handover("finish", {"summary": "add adds"})
    assert working.text("calc.py") == "def add(a, b):\n    return a + b\n"
    results = [m for m in messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in results] == ["id_read_file", "id_edit", "id_finish"]
    assert "    2      return a - b" in str(results[0]["content"])
    assert [(e.tool, e.ok) for e in events if isinstance(e, ToolCall)] == [
        ("read_file", True), ("edit", True), ("finish", True)]  # fmt: skip
    usage = r.usage["coder"]
    assert (usage.steps, usage.tool_calls) == (3, 3) and usage.prompt_tokens > 0
    assert r.read == {"calc.py"}


def test_a_tool_outside_the_roles_jail_is_refused_and_the_role_goes_on(tmp_path: Path) -> None:
    plan = call("submit_plan", steps=["make add add"], files=["calc.py"])
    r, events, working = runner(tmp_path, [call("edit", edits=FIX), plan])
    messages = brief()
    handed = r.run("planner", messages, budget=3)
    assert handed.control == "plan" and handed.data["files"] == ["calc.py"]
    [refused] = [e for e in events if isinstance(e, ToolRefused)]
    assert (refused.role, refused.tool) == ("planner", "edit") and "edit" not in refused.allowed
    assert "edit is not available here" in str(messages[3]["content"])
    assert working.changed_paths() == []


def test_a_coder_that_answers_with_edit_blocks_instead_of_a_call_is_taken_at_its_word(
    tmp_path: Path,
) -> None:
    r, events, working = runner(tmp_path, [{"content": FIX}, call("finish", summary="done")])
    assert r.run("coder", brief(), budget=3).control == "finish"
    assert working.changed_paths() == ["calc.py"]
    assert [e.tool for e in events if isinstance(e, ToolCall)] == ["edit", "finish"]


def test_a_reply_without_a_tool_call_is_nudged_with_the_roles_tools(tmp_path: Path) -> None:
    r, _, _ = runner(tmp_path, [{"content": "Let me think."}, call("finish", summary="s")])
    messages = brief()
    assert r.run("coder", messages, budget=3).control == "finish"
    nudge = str(messages[3]["content"])
    assert messages[3]["role"] == "user" and "run_tests" in nudge and "submit_plan" not in nudge


def test_a_role_that_runs_out_of_steps_says_so(tmp_path: Path) -> None:
    script = [call("read_file", path="calc.py"), call("list_files")]
    r, _, _ = runner(tmp_path, script)
    handed = r.run("coder", brief(), budget=2)
    assert handed == Handover(None, {"reason": "the coder used its 2 steps without handing over"})


def test_the_same_call_again_and_again_is_warned_once_then_stopped(tmp_path: Path) -> None:
    same = call("list_files", glob="*.py")
    r, events, _ = runner(tmp_path, [same] * 6)
    messages = brief()
    handed = r.run("coder", messages, budget=10)
    assert handed.control == "stop"
    assert (
        handed.data["reason"] == "stopped: the same list_files call with the same arguments 3 times"
    )
    loops = [(e.action, e.reason) for e in events if isinstance(e, AgentLoop)]
    assert [action for action, _ in loops] == ["intervene", "stop"]
    warned = [m for m in messages if m["role"] == "user" and "list_files" in str(m["content"])]
    assert warned, "the intervention names what it saw"


def test_the_same_reply_without_a_call_three_times_ends_the_role(tmp_path: Path) -> None:
    r, events, _ = runner(tmp_path, [{"content": "I am not sure."}] * 6)
    handed = r.run("coder", brief(), budget=10)
    assert handed.control == "stop"
    assert "the same reply without a tool call" in handed.data["reason"]
    assert [e.action for e in events if isinstance(e, AgentLoop)] == ["intervene", "stop"]
