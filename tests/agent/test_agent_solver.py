"""The agent strategy's state machine through ``solve``: a coder's change goes to the reviewer
only when it passes the gates; a rejection — the reviewer's or the person's — goes back to the
coder with its reasons; and a run that keeps nothing leaves the repository as it was."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import make_repo

from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import Approver, Decision, SolveResult
from patchwright.agent.tools.bench import CommandApprover, refuse_commands
from patchwright.config import Settings
from patchwright.events import AgentRejected, Event, EventBus, TxnRollback

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


APPROVE = call("approve", commit_message="fix(pricing): take the discount off the price")


class Answers:
    """A person who answers the approvals in turn, and records the diffs shown."""

    def __init__(self, *answers: Decision) -> None:
        self.answers, self.shown = list(answers), list[str]()

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver:
        def approve(diff: str, problems: str = "") -> Decision:
            self.shown.append(diff)
            return self.answers.pop(0)

        return approve

    def command_approver(self) -> CommandApprover:
        return refuse_commands


def agent_run(
    repo: Path, tmp_path: Path, script: list[dict[str, Any]], person: Answers | None = None,
    **overrides: Any,
) -> tuple[SolveResult, list[Event], list[dict[str, Any]]]:  # fmt: skip
    path = tmp_path / "script.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in script))
    spec = f"scripted:{path}"
    settings = Settings.model_validate({"model": {"name": spec, "catalog": {
        spec: {"tools": True, "small": False, "context_window": 32768}}}})  # fmt: skip
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    request = build_request(TASK, settings, Overrides(plan=False, yes=True, **overrides))
    result = solve(Session(settings, repo, bus=bus), request, person=person)
    run = repo / ".patchwright" / "runs" / result.run_id / "trajectory.json"
    return result, events, json.loads(run.read_text())["messages"]


def test_a_change_that_fails_the_check_goes_back_to_the_coder_not_to_the_reviewer(
    shop_repo: Path, tmp_path: Path
) -> None:
    script = [call("edit", edits=COMMENT), call("finish", summary="documented"),
              call("edit", edits=FIX), call("finish", summary="fixed"), APPROVE]  # fmt: skip
    result, events, messages = agent_run(shop_repo, tmp_path, script)
    assert (result.outcome, result.iterations) == ("solved", 2)
    [back] = [e for e in events if isinstance(e, AgentRejected)]
    assert back.reasons.startswith("the gates or the task's check failed") and not back.by_user
    assert set(result.role_usage) == {"coder", "reviewer"}
    assert result.role_usage["reviewer"]["steps"] == 1  # asked once: for the passing change
    told = [m for m in messages if m.get("role") == "user" and "test_quarter_off" in str(m)]
    assert told, "the coder is told what still fails"


def test_the_reviewers_rejection_reaches_the_coder_with_its_reasons(
    shop_repo: Path, tmp_path: Path
) -> None:
    reject = call("reject", reasons="also handle a percent above 100")
    script = [call("edit", edits=FIX), call("finish", summary="fixed"), reject,
              call("finish", summary="as it is"), APPROVE]  # fmt: skip
    result, events, messages = agent_run(shop_repo, tmp_path, script)
    assert result.outcome == "solved" and result.commit
    assert [(e.reasons, e.by_user) for e in events if isinstance(e, AgentRejected)] == [
        ("also handle a percent above 100", False)
    ]
    assert any("also handle a percent above 100" in str(m.get("content")) for m in messages)


def test_the_persons_regenerate_sends_the_change_back_and_skip_keeps_nothing(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    script = [call("edit", edits=FIX), call("finish", summary="fixed"), APPROVE,
              call("finish", summary="same again"), APPROVE]  # fmt: skip
    person = Answers("regenerate", "skip")
    result, events, _ = agent_run(shop_repo, tmp_path, script, person)
    assert (result.outcome, result.reason, result.commit) == (
        "failed", "skipped at approval", None)  # fmt: skip
    assert [e.by_user for e in events if isinstance(e, AgentRejected)] == [True]
    assert len(person.shown) == 2 and "+    return price * (1 - percent / 100)" in person.shown[0]
    assert shop.fingerprint(shop_repo) == before
    assert any(isinstance(e, TxnRollback) for e in events)


def test_finish_without_a_change_is_sent_back(shop_repo: Path, tmp_path: Path) -> None:
    script = [call("finish", summary="nothing to do"), call("edit", edits=FIX),
              call("finish", summary="fixed"), APPROVE]  # fmt: skip
    result, events, _ = agent_run(shop_repo, tmp_path, script)
    assert result.outcome == "solved"
    assert [e.reasons for e in events if isinstance(e, AgentRejected)] == [
        "you called finish without changing any file"
    ]


def test_a_coder_going_round_in_circles_is_stopped_with_the_repository_as_it_was(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    script = [call("edit", edits=FIX)] + [call("read_file", path=f"p{i}.py") for i in range(40)]
    result, _, _ = agent_run(shop_repo, tmp_path, script)
    assert result.outcome == "failed" and result.commit is None
    assert result.reason == "stopped: 8 steps with no edit and no new file read"
    assert result.files_changed == [] and result.role_usage["coder"]["steps"] < 40
    assert shop.fingerprint(shop_repo) == before


def test_the_coders_change_is_judged_with_the_compilers_safe_fixes_made(tmp_path: Path) -> None:
    """As in the pipeline: a change refused only for errors rustc knows the safe fix of (a
    borrow returned where a value goes) is judged with the fix, not sent back for it."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
    test = "#[test]\nfn adds() {\n    assert_eq!(calc::add(2, 3), 5);\n}\n"
    cargo = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
    root = tmp_path / "calc"
    root.mkdir()
    repo = make_repo(root, {"Cargo.toml": cargo, "src/lib.rs": lib, "tests/calc.rs": test,
                            ".gitignore": "target\n"})  # fmt: skip
    borrowed = ("src/lib.rs\n```rust\n<<<<<<< SEARCH\n    a - b\n=======\n    let s = &(a + b);\n"
                "    s\n>>>>>>> REPLACE\n```\n")  # fmt: skip
    script = [call("edit", edits=borrowed), call("finish", summary="fixed"), APPROVE]
    result, events, _ = agent_run(repo, tmp_path, script, test_cmd="cargo test --offline")
    assert (result.outcome, result.iterations) == ("solved", 1)
    assert not [e for e in events if isinstance(e, AgentRejected)]
    assert [n.split(" as ")[0] for n in result.notes] == [
        "src/lib.rs:3: fixed [E0308] mismatched types: expected `i32`, found `&i32`"
    ]
    assert (repo / "src/lib.rs").read_text() == lib.replace(
        "    a - b", "    let s = &(a + b);\n    *s"
    )
