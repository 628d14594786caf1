"""``run_gates``: order, stopping after a failure, a crashing gate, the repair summary."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from patchwright.verify import (
    Baseline,
    GateContext,
    GateResult,
    Problem,
    diff_problems,
    summarize_failures,
)


def test_gates_run_in_order_and_stop_after_a_failure(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"m.py": "x = 1\n"})
    base = baseline(test_cmd="true")
    write({"m.py": "x = (\n"})
    results = check(base, ["m.py"], test_cmd="true")
    assert list(results) == ["syntax", "lint", "types", "tests"]
    assert results["syntax"].status == "failed"
    for name in ("lint", "types", "tests"):
        assert results[name].status == "skipped"
        assert results[name].reason == "not run: the syntax gate failed"
    summary = summarize_failures(list(results.values()))
    assert summary.startswith("syntax gate failed with 1 new problem:")
    assert "m.py:1" in summary


def test_without_stopping_every_gate_runs(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"m.py": "x = 1\n"})
    base = baseline(test_cmd="true")
    write({"m.py": "x = 2\nprint(undefined_name)\n"})
    results = check(base, ["m.py"], stop_on_failure=False, test_cmd="true")
    assert results["lint"].status == "failed"
    assert results["tests"].status == "passed"
    assert summarize_failures(list(results.values())).count("gate failed") == 1


class Exploding:
    name = "exploding"

    def run(self, ctx: GateContext) -> GateResult:
        raise RuntimeError("bug in a gate")


def test_a_crashing_gate_is_an_error_never_a_pass(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"m.py": "x = 1\n"})
    result = check(baseline(), ["m.py"], gates=[Exploding()])["exploding"]
    assert result.status == "error" and not result.ok
    assert "bug in a gate" in (result.reason or "")
    assert "could not run" in summarize_failures([result])


def test_problem_keys_ignore_lines_and_count_duplicates() -> None:
    old = [Problem("lint", "a.py", 3, "F401", "`os` imported but unused")]
    moved = [Problem("lint", "a.py", 9, "F401", "`os` imported but unused")]
    assert diff_problems(old, moved) == ([], [])
    doubled = [*moved, Problem("lint", "a.py", 10, "F401", "`os` imported but unused")]
    new, fixed = diff_problems(old, doubled)
    assert [p.line for p in new] == [10] and fixed == []
    new, fixed = diff_problems(old, [])
    assert new == [] and fixed == old


def test_summary_is_empty_when_all_gates_pass() -> None:
    assert summarize_failures([GateResult("syntax", "passed"), GateResult("x", "skipped")]) == ""
