"""A rejected change came close when it left at most half of the baseline's failing checks,
all among them (``agent/progress.py``)."""

from __future__ import annotations

from patchwright.agent.checker import Check
from patchwright.agent.criterion import Verdict
from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.progress import closing_in, failure_points
from patchwright.agent.repair import Repair, repair_for
from patchwright.verify import GateResult

BASELINE = """`go test ./...` fails:
- failed: main_test.go::TestCommon
    main_test.go:10: Not equal: expected: []int{1, 5, 653} actual  : []int{1, 653, 5}
    main_test.go:11: Not equal: expected: []int{2, 3} actual  : []int{3, 2}
    main_test.go:12: Not equal: expected: []int{2, 3, 4} actual  : []int{4, 3, 2}
"""


def _left(*lines: int) -> str:
    return "- failed: main_test.go::TestCommon\n" + "".join(
        f"    main_test.go:{n}: Not equal: expected: x actual  : y\n" for n in lines
    )


def test_the_places_are_the_file_and_line_a_report_line_starts_with() -> None:
    assert failure_points(BASELINE) == {("main_test.go", n) for n in (10, 11, 12)}
    rust = "thread 'tests::it' panicked at src/lib.rs:30:9:\nassertion failed"
    assert failure_points(rust) == set()


def test_a_change_that_leaves_one_of_three_failing_checks_is_close() -> None:
    assert closing_in(BASELINE, _left(10)) == (2, 3)


def test_leaving_more_than_half_is_not_close() -> None:
    assert closing_in(BASELINE, _left(10, 12)) is None


def test_a_check_that_failed_only_after_the_change_is_not_close() -> None:
    assert closing_in(BASELINE, _left(14)) is None


def test_a_report_without_places_says_nothing_of_progress() -> None:
    assert closing_in(BASELINE, "build failed: main.go: syntax error") is None
    assert closing_in(_left(10), _left(10)) is None  # one check: fixed or not, no "most"


def test_the_lines_of_a_failed_build_are_not_checks() -> None:
    before = (
        "- error: .::[build]\n"
        "    build failed: octal_test.go:21: ParseOctal(test.input) (no value) used as value\n"
        "    octal_test.go:21: not enough arguments in call to ParseOctal\n"
        "    octal_test.go:47: not enough arguments in call to ParseOctal\n"
    )
    after = (
        "- error: .::[build]\n"
        "    build failed: octal_test.go:21: not enough arguments in call to ParseOctal\n"
        "    octal_test.go:47: not enough arguments in call to ParseOctal\n"
    )
    assert failure_points(before) == set()
    assert closing_in(before, after) is None
    assert failure_points(before + BASELINE.split("\n", 1)[1]) == failure_points(BASELINE)


JEST = (
    "- failed: binary.spec.js::binary::invalid inputs are null\n"
    "    expect(received).toEqual(expected) // deep equality\n"
    "    at binary.spec.js:31:41\n"
)
TESTS = tuple(f"binary.spec.js::binary::{n}" for n in ("0", "1", "10", "invalid inputs are null"))


def _repair(remaining: list[str], required: tuple[str, ...] = TESTS) -> Repair:
    check = Check([GateResult("tests", "passed")], Verdict(False, remaining, JEST))
    opts = SolveOptions("Implement binary.js", "whole", 4, required=required,
                        failures="- failed: binary.spec.js::binary::0\n- ... and 3 more")  # fmt: skip
    return repair_for(check, opts, "Implement binary.js", ({}, {}), [])


def test_a_change_that_leaves_few_of_the_required_tests_failing_is_close_by_test() -> None:
    """Polyglot JavaScript binary: the second reply passed 9 of 10 tests, but jest's report
    has no ``file:line:`` places and lists five tests of ten, so it was not seen as close."""
    repair = _repair([TESTS[3]])
    assert repair.closer == (3, 4)
    assert "That change made 3 of the 4 failing checks pass" in repair.prompt
    assert _repair(list(TESTS[2:])).closer == (2, 4)  # half: still close
    assert _repair(list(TESTS[1:])).closer is None  # three of four left
    assert _repair([TESTS[3], "binary.spec.js::binary::new"]).closer is None  # one broke
    assert _repair([TESTS[0]], required=TESTS[:1]).closer is None  # one test: no "most"
