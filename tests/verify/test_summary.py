"""The repair prompt's account of what failed: only what is new, per gate, brief — a test
with its assertion and the tail of its traceback, a gate that could not run with why."""

from __future__ import annotations

import sys
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify import run_tests
from patchwright.verify.model import GateResult, Problem
from patchwright.verify.summary import MAX_CHARS, MAX_PROBLEMS, describe_tests, summarize_failures
from patchwright.verify.testmodel import TestRun

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
    many = [
        Problem("lint", "a.py", i, "E501", f"line too long ({80 + i} > 79)") for i in range(1, 31)
    ]
    text = summarize_failures([GateResult("lint", "failed", many)])
    assert text.count("[E501]") == MAX_PROBLEMS
    assert text.endswith(f"- ... and {30 - MAX_PROBLEMS} more")


def test_one_error_at_many_lines_is_told_once_with_its_lines_leaving_room_for_the_others() -> None:
    missing = [Problem("types", "src/lib.rs", n, "E0425", "cannot find value `other` in this scope",
                       hint=f"help: a local variable with a similar name exists: line {n}")
               for n in (31, 32, 33, 40, 41, 42, 50, 51, 52, 56, 57, 60)]  # fmt: skip
    other = Problem("types", "src/lib.rs", 39, "E0425", "cannot find function `min` in this scope")
    text = summarize_failures([GateResult("types", "failed", [*missing[:5], other, *missing[5:]])])
    assert text.splitlines() == [
        "types gate failed with 13 new problems:",
        "- src/lib.rs:31: [E0425] cannot find value `other` in this scope "
        "(the same at lines 32, 33, 40, 41, 42, 50, 51, 52 and 3 more)",
        "    help: a local variable with a similar name exists: line 31",
        "- src/lib.rs:39: [E0425] cannot find function `min` in this scope",
    ]


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


LUHN = """class Luhn:
    def __init__(self, card_num):
        self.card_num = card_num

    def valid(self):
        if not self.is_valid():
            return False
        return len(self.card_num) > 1
"""
LUHN_TESTS = """import unittest

from luhn import Luhn


class LuhnTest(unittest.TestCase):
""" + "".join(
    f"""    def test_{name}(self):
        self.assertIs(Luhn("{number}").valid(), True)

"""
    for name, number in [("one", "059"), ("two", "59"), ("three", "091"), ("four", "8273")]
)


def luhn_run(repo: Path, sandbox: Sandbox, code: str, tests: str) -> TestRun:
    (repo / "luhn.py").write_text(code)
    (repo / "luhn_test.py").write_text(tests)
    return run_tests(repo, sandbox, f"{sys.executable} -m pytest -q luhn_test.py", timeout=60)


def test_tests_failing_with_one_error_raised_in_the_code_are_told_once_with_the_others_named(
    repo: Path, sandbox: Sandbox
) -> None:
    own = "    def test_five(self):\n        self.assertEqual(1, 2)\n"
    run = luhn_run(repo, sandbox, LUHN, LUHN_TESTS + own)
    text = describe_tests(run, sorted(run.failing), limit=5)
    assert text.count("AttributeError: 'Luhn' object has no attribute 'is_valid'") == 1
    assert "The same error at luhn.py:6 in 3 more: test_one, test_three, test_two" in text
    assert "- failed: luhn_test.py::LuhnTest::test_five" in text  # its own assertion: told apart
    assert "^^^" not in text  # Python's carets under the failing call are not quoted


def test_failures_at_the_tests_own_assertions_are_told_one_by_one(
    repo: Path, sandbox: Sandbox
) -> None:
    run = luhn_run(repo, sandbox, LUHN.replace("not self.is_valid()", "True"), LUHN_TESTS)
    text = describe_tests(run, sorted(run.failing), limit=3)
    assert text.count("- failed: ") == 3 and text.endswith("- ... and 1 more")
    assert "The same error" not in text
