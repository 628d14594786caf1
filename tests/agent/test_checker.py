"""The check of a written change: the gates judge regressions against the baseline, the
criterion judges success — and a change is "solved" only when a check that failed before the
change passes after it. A gate that could not run is never a pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from patchwright.agent.checker import Check, GateChecker, GatesCouldNotRun
from patchwright.agent.criterion import Verdict
from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.task.prepare import prepare
from patchwright.agent.task.repo import open_repo
from patchwright.config import Settings
from patchwright.events import CriterionResult, Event, EventBus, GateResult
from patchwright.verify import GateResult as Gate

TASK = "apply_discount returns the discount, not the price. Fix it."


def checker(repo: Path, tmp_path: Path, **overrides: object) -> tuple[GateChecker, list[Event]]:
    script = tmp_path / "script.jsonl"
    script.write_text('{"content": "unused"}\n')
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}"}})
    events: list[Event] = []
    bus = EventBus()
    session = Session(settings, repo, bus=bus)
    request = build_request(TASK, settings, Overrides(yes=True, **overrides))  # type: ignore[arg-type]
    ground = prepare(session, open_repo(session, request), request)
    bus.subscribe(events.append)  # the check's events, not the baseline's
    return ground.checker, events


def test_the_fix_passes_the_gates_and_meets_the_criterion(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    gates, events = checker(shop_repo, tmp_path)
    (shop_repo / "shop" / "pricing.py").write_text(shop.FIXED)
    check = gates.check(["shop/pricing.py"])
    assert check.gates_ok and check.solved and check.summary == ""
    assert check.gate_statuses["tests"] == "passed" and check.gate_statuses["syntax"] == "passed"
    reported = [e.gate for e in events if isinstance(e, GateResult)]
    assert reported == list(check.gate_statuses)
    [verdict] = [e for e in events if isinstance(e, CriterionResult)]
    assert (verdict.met, verdict.remaining, verdict.proved) == (True, [], True)
    assert gates.last is check


def test_a_change_that_misses_the_criterion_is_no_regression_but_not_done(
    shop_repo: Path, tmp_path: Path
) -> None:
    gates, events = checker(shop_repo, tmp_path)
    pricing = shop_repo / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace('"""Prices', '"""All prices'))
    check = gates.check(["shop/pricing.py"])
    assert check.gates_ok and not check.ok and not check.solved
    assert check.verdict is not None and sorted(check.verdict.remaining) == [
        "tests/test_pricing.py::test_quarter_off",
        "tests/test_pricing.py::test_zero",
    ]
    assert "test_quarter_off" in check.summary
    assert [e.met for e in events if isinstance(e, CriterionResult)] == [False]


def test_a_broken_file_fails_the_gates_and_asks_the_criterion_nothing(
    shop_repo: Path, tmp_path: Path
) -> None:
    gates, events = checker(shop_repo, tmp_path)
    (shop_repo / "shop" / "pricing.py").write_text("def apply_discount(price, percent)\n")
    check = gates.check(["shop/pricing.py"])
    assert not check.gates_ok and check.verdict is None
    assert check.gate_statuses["syntax"] == "failed" and "syntax" in check.summary
    assert not any(isinstance(e, CriterionResult) for e in events)


def test_a_done_when_command_runs_in_the_sandbox_with_its_exit_code(
    shop_repo: Path, tmp_path: Path
) -> None:
    gates, _ = checker(shop_repo, tmp_path)
    assert gates.run_command("echo ready") == (0, "ready")
    code, output = gates.run_command("echo oops >&2; exit 4")
    assert (code, output) == (4, "oops")
    gates.command_timeout = 1
    assert gates.run_command("sleep 5")[0] is None


def test_a_check_that_held_before_the_change_cannot_prove_it() -> None:
    held = Check([Gate("tests", "passed")], Verdict(True, proved=False))
    assert held.ok and not held.solved
    note = held.unproved_note() or ""
    assert note.startswith("unverified: the task's check already held before any change")
    nothing = Check([Gate("syntax", "passed"), Gate("tests", "skipped", reason="no tests found")])
    assert nothing.ok and not nothing.solved
    assert "no check could prove the task done (no tests found)" in (nothing.unproved_note() or "")
    assert Check([Gate("tests", "passed")], Verdict(True)).unproved_note() is None


def test_a_gate_that_could_not_run_stops_the_run_and_says_what_to_fix() -> None:
    check = Check([Gate("syntax", "passed"),
                   Gate("tests", "could_not_run", reason="pytest: not found")])  # fmt: skip
    with pytest.raises(GatesCouldNotRun) as stopped:
        check.require_verdicts()
    message = str(stopped.value)
    assert message.startswith("the tests gate could not run (pytest: not found)")
    assert "pass a --test-cmd that runs here" in message and stopped.value.check is check
    broken_before = Check([Gate("tests", "could_not_run", reason="timed out")],
                          suite_broken_before=True)  # fmt: skip
    broken_before.require_verdicts()  # still broken: the change's to mend, not a tool's
    assert broken_before.not_run == [] and not broken_before.ok
