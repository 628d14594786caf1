"""The repair prompt's account of what failed: only what is new, per gate, brief — a test
with its assertion and the tail of its traceback, a gate that could not run with why."""

from __future__ import annotations

from patchwright.verify.model import GateResult, Problem
from patchwright.verify.summary import MAX_CHARS, MAX_PROBLEMS, summarize_failures

TRACE = "\n".join(f"  frame {i}" for i in range(20)) + "\nAssertionError: assert 50.0 == 150.0"


def test_passed_gates_say_nothing_and_a_failed_one_lists_its_new_problems() -> None:
    lint = Problem("lint", "shop/pricing.py", 3, "F821", "undefined name 'percnt'")
    results = [GateResult("syntax", "passed"), GateResult("lint", "failed", [lint])]
    assert summarize_failures(results[:1]) == ""
    assert summarize_failures(results) == (
        "lint gate failed with 1 new problem:\n- shop/pricing.py:3: [F821] undefined name 'percnt'"
    )


def test_a_failing_test_keeps_its_assertion_and_the_last_lines_of_its_traceback() -> None:
    test = Problem("tests", "tests/test_pricing.py", None, "failed",
                   "tests/test_pricing.py::test_quarter_off", detail=TRACE)  # fmt: skip
    text = summarize_failures([GateResult("tests", "failed", [test])])
    lines = text.splitlines()
    assert lines[:2] == ["tests gate failed with 1 new problem:",
                         "- tests/test_pricing.py::test_quarter_off (failed)"]  # fmt: skip
    assert lines[2] == "    ..." and lines[-1] == "    AssertionError: assert 50.0 == 150.0"
    assert len(lines) == 3 + 8 and "frame 0" not in text  # the tail, not the whole trace


def test_many_problems_are_cut_to_the_first_twelve_and_a_count() -> None:
    many = [Problem("lint", "a.py", i, "E501", "line too long") for i in range(1, 31)]
    text = summarize_failures([GateResult("lint", "failed", many)])
    assert text.count("[E501]") == MAX_PROBLEMS
    assert text.endswith(f"- ... and {30 - MAX_PROBLEMS} more")


def test_a_gate_that_could_not_run_says_why_never_that_it_passed() -> None:
    broken = GateResult("types", "could_not_run", output="mypy: error: plugin not found",
                        reason="mypy exited 2")  # fmt: skip
    text = summarize_failures([broken])
    assert text.startswith("types gate could not run: mypy exited 2")
    assert "plugin not found" in text


def test_the_whole_account_stays_under_its_budget() -> None:
    huge = [Problem("lint", f"m{i}.py", 1, "E", "x" * 900) for i in range(12)]
    gates = [GateResult(f"gate{i}", "failed", huge) for i in range(3)]
    text = summarize_failures(gates)
    assert len(text) <= MAX_CHARS and text.endswith("... (truncated)")
