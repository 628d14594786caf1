"""Events as types: every kind a declared dataclass; each line of ``events.jsonl`` a declared
kind with its declared fields (what ``patchwright log``, the dashboard and scripts read); and a
listener that reads a field its kind does not have is a mypy error, not a silent ``None``."""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
from mypy import api as mypy_api

from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.config import Settings
from patchwright.events import (
    KINDS,
    Event,
    EventBus,
    GateResult,
    JsonlWriter,
    TxnRollback,
    declared_fields,
)

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)
COMMENT = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n"
    '"""Prices and discounts."""\n=======\n"""Prices and discounts (checked)."""\n'
    ">>>>>>> REPLACE\n```\n"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"content": "", "tool_calls": [{"id": f"c_{name}", "name": name,
                                           "arguments": arguments}]}  # fmt: skip


def settings_for(tmp_path: Path, replies: list[dict[str, Any]], *, tools: bool) -> Settings:
    path = tmp_path / "script.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    spec = f"scripted:{path}"
    model: dict[str, Any] = {"name": spec}
    if tools:
        model["catalog"] = {spec: {"tools": True, "small": False, "context_window": 32768}}
    return Settings.model_validate({"model": model})


def lines_of(repo: Path, run_id: str) -> list[dict[str, Any]]:
    path = repo / ".patchwright" / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_declared(lines: list[dict[str, Any]]) -> None:
    """Each line: a declared kind, a time, every required field and no undeclared one."""
    for line in lines:
        kind = line["kind"]
        assert kind in KINDS, f"{kind} is emitted but not declared in patchwright.events"
        assert isinstance(line["ts"], float)
        required, optional = declared_fields(kind)
        fields = set(line) - {"kind", "ts"}
        assert required <= fields, f"{kind} lacks {sorted(required - fields)}"
        assert fields <= required | optional, f"{kind} has undeclared {sorted(fields - required)}"


def test_every_line_of_a_pipeline_run_is_a_declared_kind_with_its_fields(
    shop_repo: Path, tmp_path: Path
) -> None:
    replies = [{"content": COMMENT}, {"content": FIX}, {"content": "fix(pricing): discount"}]
    settings = settings_for(tmp_path, replies, tools=False)
    request = build_request(TASK, settings, Overrides(yes=True, max_iter=2))
    result = solve(Session(settings, shop_repo), request)
    assert result.outcome == "solved"
    lines = lines_of(shop_repo, result.run_id)
    assert_declared(lines)
    kinds = [line["kind"] for line in lines]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    for kind in ("strategy.chosen", "baseline.done", "criterion.decided", "context.built",
                 "iteration.start", "model.request", "model.reply", "edit.applied", "txn.write",
                 "gate.result", "criterion.result", "txn.rollback", "txn.commit"):  # fmt: skip
        assert kind in kinds
    # the router says what each call was for: two edits (the first missed), the commit message
    phases = [line["phase"] for line in lines if line["kind"] == "model.reply"]
    assert phases == ["edit", "edit", "commit-message"]


def test_every_line_of_an_agent_run_is_a_declared_kind_with_its_fields(
    shop_repo: Path, tmp_path: Path
) -> None:
    plan = call("submit_plan", steps=["fix apply_discount"], files=["shop/pricing.py"])
    approve = call("approve", commit_message="fix(pricing): take the discount off the price")
    script = [plan, call("read_file", path="shop/pricing.py"), call("edit", edits=FIX),
              call("finish", summary="price minus the discount"), approve]  # fmt: skip
    settings = settings_for(tmp_path, script, tools=True)
    result = solve(Session(settings, shop_repo), build_request(TASK, settings, Overrides(yes=True)))
    assert (result.outcome, result.strategy) == ("solved", "agent")
    lines = lines_of(shop_repo, result.run_id)
    assert_declared(lines)
    by_kind = {line["kind"]: line for line in lines}
    assert by_kind["agent.plan"]["steps"] == ["fix apply_discount"]
    assert "reason" not in by_kind["agent.plan"]  # an optional detail with no value
    tools = [(line["role"], line["tool"]) for line in lines if line["kind"] == "tool.call"]
    assert tools == [("planner", "submit_plan"), ("coder", "read_file"), ("coder", "edit"),
                     ("coder", "finish"), ("reviewer", "approve")]  # fmt: skip
    roles = [line["phase"] for line in lines if line["kind"] == "model.request"]
    assert roles == ["planner", "coder", "coder", "coder", "reviewer"]


def test_an_event_is_one_json_line_of_kind_time_and_fields() -> None:
    gate = GateResult(gate="lint", status="passed", new_problems=0, fixed_problems=1,
                      seconds=0.25, reason=None, ts=12.3456)  # fmt: skip
    assert json.loads(gate.to_json()) == {
        "kind": "gate.result", "ts": 12.346, "gate": "lint", "status": "passed",
        "new_problems": 0, "fixed_problems": 1, "seconds": 0.25, "reason": None,
    }  # fmt: skip
    assert json.loads(TxnRollback(reason="a gate failed", ts=1.0).to_json()) == {
        "kind": "txn.rollback",
        "ts": 1.0,
        "reason": "a gate failed",
    }  # an optional detail left at None is not written
    assert TxnRollback(reason="r", iteration=2).payload() == {"reason": "r", "iteration": 2}


def test_a_kind_is_declared_once_and_every_event_names_one() -> None:
    with pytest.raises(TypeError, match="declared twice"):

        @dataclass(frozen=True, kw_only=True)
        class Again(Event):
            kind: ClassVar[str] = "gate.result"

    with pytest.raises(TypeError, match="declares no kind"):

        @dataclass(frozen=True, kw_only=True)
        class Nameless(Event):
            pass

    assert all(cls.kind == kind for kind, cls in KINDS.items())


def test_a_broken_listener_does_not_stop_the_others_and_one_can_leave(tmp_path: Path) -> None:
    bus, seen = EventBus(), list[str]()

    def broken(event: Event) -> None:
        raise RuntimeError("a closed stream")

    bus.subscribe(broken)
    leave = bus.subscribe(lambda e: seen.append(e.kind))
    writer = JsonlWriter(tmp_path / "out" / "events.ndjson")
    bus.subscribe(writer)
    sent = bus.emit(TxnRollback(reason="one"))
    leave()
    bus.emit(TxnRollback(reason="two"))
    assert sent.reason == "one" and seen == ["txn.rollback"]
    written = [json.loads(x) for x in writer.path.read_text().splitlines()]
    assert [w["reason"] for w in written] == ["one", "two"]


def mypy_errors(tmp_path: Path, listener: str) -> str:
    source = tmp_path / "listener.py"
    source.write_text("from patchwright.events import *  # noqa\n" + textwrap.dedent(listener))
    out, _err, _status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
         "--no-error-summary", "--hide-error-context", str(source)]
    )  # fmt: skip
    return out


def test_a_listener_reading_a_field_its_kind_does_not_have_fails_mypy(tmp_path: Path) -> None:
    wrong = mypy_errors(
        tmp_path,
        """
        def on_event(event: Event) -> None:
            if isinstance(event, ToolCall):
                print(event.phase)  # model.request has a phase; tool.call has none
            match event:
                case GateResult():
                    print(event.files)
    """,
    )
    assert '"ToolCall" has no attribute "phase"' in wrong
    assert '"GateResult" has no attribute "files"' in wrong
    right = mypy_errors(
        tmp_path,
        """
        def on_event(event: Event) -> None:
            match event:
                case ModelRequest():
                    print(event.phase, event.messages)
                case ToolCall():
                    print(event.role, event.tool, event.ok)
    """,
    )
    assert right == ""
