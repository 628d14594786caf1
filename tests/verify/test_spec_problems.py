"""The data the gates exchange, specified: a ``Problem``'s identity (everything but its line
and detail) and its one-line rendering, the baseline comparison (``diff_problems``: only
problems beyond the baseline's count of the same key are new), a ``GateResult``'s verdict
(only ``passed`` and ``skipped`` are ok; ``could_not_run`` and ``error`` are never a pass) and
its JSON form, and the repair prompt's account of failures (``summarize_failures``,
``describe_tests``)."""

from __future__ import annotations

import json

import pytest

from patchwright.verify import GateResult, Problem, diff_problems, summarize_failures
from patchwright.verify.model import NOT_RUN, status_label
from patchwright.verify.summary import MAX_DETAIL_LINES, describe_tests
from patchwright.verify.testmodel import TestCase, TestRun


def lint(path: str, line: int | None, code: str, message: str, detail: str = "") -> Problem:
    return Problem("lint", path, line, code, message, detail)


# -- a problem's identity and rendering -----------------------------------------------------


def test_a_problem_is_known_by_gate_path_code_and_message_not_by_line_or_detail() -> None:
    a = lint("a.py", 3, "F821", "undefined name 'x'", detail="column 5")
    moved = lint("a.py", 40, "F821", "undefined name 'x'", detail="column 9")
    assert a.key == moved.key == ("lint", "a.py", "F821", "undefined name 'x'")
    assert a.key != lint("b.py", 3, "F821", "undefined name 'x'").key
    assert a.key != lint("a.py", 3, "F841", "undefined name 'x'").key
    assert a.key != Problem("types", "a.py", 3, "F821", "undefined name 'x'").key


def test_a_problem_without_a_code_has_the_same_key_as_one_with_an_empty_code() -> None:
    assert lint("a.py", 1, "", "m").key == Problem("lint", "a.py", 1, None, "m").key


def test_a_problem_renders_as_path_line_code_and_message() -> None:
    assert lint("a.py", 3, "F821", "undefined name 'x'").render() == (
        "a.py:3: [F821] undefined name 'x'"
    )
    assert Problem("syntax", "a.json", None, None, "bad").render() == "a.json: bad"
    assert Problem("types", "m.py", 7, None, "oops").render() == "m.py:7: oops"


def test_a_failing_or_erroring_test_renders_as_its_id_and_outcome() -> None:
    failed = Problem("tests", "t/test_a.py", 4, "failed", "t/test_a.py::test_x", "trace")
    errored = Problem("tests", "t/test_a.py", None, "error", "t/test_a.py")
    assert failed.render() == "t/test_a.py::test_x (failed)"
    assert errored.render() == "t/test_a.py (error)"
    # another gate's problem with the code "failed" is rendered as usual
    assert Problem("lint", "a.py", 1, "failed", "m").render() == "a.py:1: [failed] m"


def test_a_problem_that_belongs_to_no_file_renders_without_an_empty_location() -> None:
    run = Problem("tests", "", None, "run", "bash t.sh exited 1")
    assert run.render() == "[run] bash t.sh exited 1"


def test_a_problem_as_a_dict_holds_every_field() -> None:
    p = lint("a.py", 2, "E9", "bad", detail="column 1")
    assert p.to_dict() == {"gate": "lint", "path": "a.py", "line": 2, "code": "E9",
                           "message": "bad", "detail": "column 1", "hint": ""}  # fmt: skip
    assert json.loads(json.dumps(p.to_dict())) == p.to_dict()


# -- the baseline comparison ----------------------------------------------------------------


def test_problems_the_baseline_had_are_neither_new_nor_fixed() -> None:
    old = [lint("a.py", 1, "F401", "unused"), lint("b.py", 2, "F821", "undefined")]
    assert diff_problems(old, list(reversed(old))) == ([], [])


def test_a_problem_in_another_file_is_new_even_with_the_same_code_and_message() -> None:
    old = [lint("a.py", 1, "F401", "unused")]
    twin = lint("b.py", 1, "F401", "unused")
    assert diff_problems(old, [*old, twin]) == ([twin], [])


def test_counts_are_compared_as_multisets_in_both_directions() -> None:
    p = lint("a.py", 1, "F401", "unused")
    three = [p, lint("a.py", 5, "F401", "unused"), lint("a.py", 9, "F401", "unused")]
    new, fixed = diff_problems(three[:1], three)
    assert [x.line for x in new] == [5, 9] and fixed == []
    new, fixed = diff_problems(three, three[:1])
    assert new == [] and [x.line for x in fixed] == [5, 9]


def test_new_problems_keep_the_order_the_tool_reported_them_in() -> None:
    after = [lint("z.py", 1, "E", "a"), lint("a.py", 1, "E", "b"), lint("m.py", 1, "E", "c")]
    new, _fixed = diff_problems([], after)
    assert new == after


def test_the_comparison_accepts_any_iterable_once() -> None:
    before = (p for p in [lint("a.py", 1, "E", "old")])
    after = (p for p in [lint("a.py", 2, "E", "new")])
    new, fixed = diff_problems(before, after)
    assert [p.message for p in new] == ["new"] and [p.message for p in fixed] == ["old"]


# -- a gate's verdict -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "ok", "not_run"),
    [("passed", True, False), ("skipped", True, False), ("failed", False, False),
     ("could_not_run", False, True), ("error", False, True)],
)  # fmt: skip
def test_only_passed_and_skipped_are_ok_and_a_gate_without_a_verdict_is_never_ok(
    status: str, ok: bool, not_run: bool
) -> None:
    result = GateResult("g", status)  # type: ignore[arg-type]
    assert (result.ok, result.could_not_run) == (ok, not_run)
    assert (status in NOT_RUN) == not_run


def test_a_status_reads_with_spaces_for_people() -> None:
    assert status_label("could_not_run") == "could not run"
    assert status_label("passed") == "passed"


def test_a_gate_result_as_a_dict_says_whether_it_was_ok_or_had_no_verdict() -> None:
    new = lint("a.py", 3, "F821", "undefined")
    fixed = lint("a.py", 1, "F401", "unused")
    result = GateResult("lint", "failed", [new], [fixed], "a.py:3: ...", 0.12345, "a note")
    data = result.to_dict()
    assert data["name"] == "lint" and data["status"] == "failed"
    assert data["ok"] is False and data["could_not_run"] is False
    assert data["new_problems"] == [new.to_dict()]
    assert data["fixed_problems"] == [fixed.to_dict()]
    assert data["seconds"] == 0.123 and data["reason"] == "a note"
    assert json.loads(json.dumps(data)) == data  # the run record can write it as it is
    broken = GateResult("types", "could_not_run", reason="mypy exited 2").to_dict()
    assert broken["ok"] is False and broken["could_not_run"] is True


def test_the_test_run_a_gate_carries_is_left_out_of_its_equality_and_its_dict() -> None:
    run = TestRun("pytest", 0, "ok")
    with_run = GateResult("tests", "passed", test_run=run)
    assert with_run == GateResult("tests", "passed")
    assert "test_run" not in with_run.to_dict()


# -- the repair prompt's account ------------------------------------------------------------


def test_a_gate_that_could_not_run_without_a_reason_shows_the_end_of_its_output() -> None:
    output = "x" * 500 + "the tail that says why"
    text = summarize_failures([GateResult("lint", "could_not_run", output=output)])
    assert text.startswith("lint gate could not run: ")
    assert text.endswith("the tail that says why")
    assert len(text) < len("lint gate could not run: ") + 301


def test_a_crashed_gate_is_told_as_one_that_could_not_run() -> None:
    crashed = GateResult("lint", "error", output="RuntimeError('x')", reason="the gate crashed")
    text = summarize_failures([crashed])
    assert text.splitlines()[0] == "lint gate could not run: the gate crashed"
    assert "    RuntimeError('x')" in text


def test_a_failed_gate_with_no_problem_listed_shows_its_output() -> None:
    failed = GateResult("tests", "failed", output="collected 0 items\nsomething broke\n")
    text = summarize_failures([failed])
    assert text.splitlines() == ["tests gate failed with 0 new problems:",
                                 "    collected 0 items", "    something broke"]  # fmt: skip


def test_only_tests_and_smoke_problems_bring_their_detail() -> None:
    crash = Problem("smoke", "main.py", None, "crash", "ValueError: x", "Traceback\nValueError: x")
    styled = lint("a.py", 1, "F821", "undefined", detail="column 7")
    text = summarize_failures(
        [GateResult("smoke", "failed", [crash]), GateResult("lint", "failed", [styled])]
    )
    assert "    Traceback" in text
    assert "column 7" not in text


def test_the_account_lists_failed_gates_in_their_order_and_skips_the_ok_ones() -> None:
    results = [
        GateResult("syntax", "passed"),
        GateResult("lint", "failed", [lint("a.py", 1, "E9", "bad")]),
        GateResult("types", "skipped", reason="not run: the lint gate failed"),
        GateResult("tests", "could_not_run", reason="pytest is not installed"),
    ]
    lines = summarize_failures(results).splitlines()
    assert lines == ["lint gate failed with 1 new problem:", "- a.py:1: [E9] bad",
                     "tests gate could not run: pytest is not installed"]  # fmt: skip


def test_the_baseline_failures_are_described_with_outcome_id_and_message() -> None:
    run = TestRun("pytest", 1, "")
    run.cases = {
        "t.py::a": TestCase("t.py::a", "failed", "t.py", 1, "assert 1 == 2", "t.py:2: in a"),
        "t.py::b": TestCase("t.py::b", "error", "t.py", 5),
    }
    assert describe_tests(run, ["t.py::a", "t.py::b"]).splitlines() == [
        "- failed: t.py::a", "    assert 1 == 2", "    t.py:2: in a", "- error: t.py::b",
    ]  # fmt: skip


def test_past_the_limit_the_baseline_failures_are_only_counted() -> None:
    run = TestRun("pytest", 1, "")
    ids = [f"t.py::test_{i}" for i in range(5)]
    run.cases = {i: TestCase(i, "failed") for i in ids}
    text = describe_tests(run, ids, limit=2)
    assert text.splitlines() == ["- failed: t.py::test_0", "- failed: t.py::test_1",
                                 "- ... and 3 more"]  # fmt: skip


def test_a_long_traceback_is_cut_to_its_last_lines_in_a_baseline_description() -> None:
    run = TestRun("pytest", 1, "")
    trace = "\n".join(f"line {i}" for i in range(30))
    run.cases = {"t.py::a": TestCase("t.py::a", "failed", detail=trace)}
    lines = describe_tests(run, ["t.py::a"]).splitlines()
    assert lines[1] == "    ..." and lines[-1] == "    line 29"
    assert len(lines) == 2 + MAX_DETAIL_LINES
    assert describe_tests(run, []) == ""


def test_a_long_diff_keeps_the_assertion_message_ahead_of_its_last_lines() -> None:
    run = TestRun("go", 1, "")
    diff = "\n".join(["Diff:", "--- Expected", "+++ Actual", *(f"-  {i}," for i in range(20))])
    message = 'Not equal: expected: []string{"()"} actual : []string{}'
    run.cases = {"m_test.go::TestX": TestCase("m_test.go::TestX", "failed", detail=diff,
                                              message=message)}  # fmt: skip
    lines = describe_tests(run, ["m_test.go::TestX"]).splitlines()
    assert lines[:3] == ["- failed: m_test.go::TestX", f"    {message}", "    ..."]
    assert lines[-1] == "    -  19,"
