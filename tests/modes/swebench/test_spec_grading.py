"""Specification of grading, the harness's rule: every FAIL_TO_PASS and PASS_TO_PASS test
must end ``PASSED`` or ``XFAIL``; ``FAILED``, ``ERROR`` or no outcome at all fails it; a
``SKIPPED`` test counts neither way. Logs are read with the official per-repository parser
where the ``swebench`` package knows the repository, else with pytest's ``-rA`` summary."""

from __future__ import annotations

import pytest

from patchwright.modes.swebench.checks import OWN
from patchwright.modes.swebench.grading import HIDDEN, grade, parse_log, parse_pytest_summary
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.tests import TestReport as Report  # not collected

SUMMARY = """============================= test session starts ==============================
tests/test_m.py::test_ok PASSED                                          [ 20%]
tests/test_m.py::test_bad FAILED                                         [ 40%]
=========================== short test summary info ============================
PASSED tests/test_m.py::test_ok
PASSED tests/test_m.py::TestK::test_method[a-b]
XFAIL tests/test_m.py::test_known - reason: not yet
FAILED tests/test_m.py::test_bad - assert 1 == 2
ERROR tests/test_m.py::test_fixture_broke - RuntimeError: no db
SKIPPED [1] tests/test_m.py:40: needs network
FAILED
========================= 2 failed, 2 passed in 0.12s ==========================
"""


def test_the_summary_gives_each_test_its_status() -> None:
    assert parse_pytest_summary(SUMMARY) == {
        "tests/test_m.py::test_ok": "PASSED",
        "tests/test_m.py::TestK::test_method[a-b]": "PASSED",
        "tests/test_m.py::test_known": "XFAIL",
        "tests/test_m.py::test_bad": "FAILED",
        "tests/test_m.py::test_fixture_broke": "ERROR",
        "[1]": "SKIPPED",  # a skip line's second word, as the harness's rule reads it
    }
    official, parser = parse_log("marshmallow-code/marshmallow", SUMMARY)  # parse_log_pytest
    assert parser == "swebench" and official == parse_pytest_summary(SUMMARY)


def test_progress_lines_and_a_bare_status_word_are_not_outcomes() -> None:
    status = parse_pytest_summary("tests/test_m.py::test_ok PASSED [100%]\nFAILED\nPASSED\n")
    assert status == {}


def test_a_later_summary_line_for_the_same_test_wins() -> None:
    log = "FAILED t.py::test_flaky - boom\nPASSED t.py::test_flaky\n"
    assert parse_pytest_summary(log) == {"t.py::test_flaky": "PASSED"}


def test_a_repository_the_harness_knows_is_read_with_its_own_parser() -> None:
    django_log = (
        "test_empty (queries.tests.Q) ... ok\n"
        "test_broken (queries.tests.Q) ... FAIL\n"
        "test_crash (queries.tests.Q) ... ERROR\n"
    )
    status, parser = parse_log("django/django", django_log)
    assert parser == "swebench"
    assert status == {
        "test_empty (queries.tests.Q)": "PASSED",
        "test_broken (queries.tests.Q)": "FAILED",
        "test_crash (queries.tests.Q)": "ERROR",
    }
    assert parse_pytest_summary(django_log) == {}  # the fallback rule could not read it


def test_an_unknown_repository_falls_back_to_the_pytest_summary() -> None:
    status, parser = parse_log("someone/unknown", SUMMARY)
    assert parser == "pytest -rA"
    assert status == parse_pytest_summary(SUMMARY)


def test_passed_and_xfail_pass_failed_error_and_missing_fail() -> None:
    status = {"a": "PASSED", "b": "XFAIL", "c": "FAILED", "d": "ERROR"}
    result = grade(status, ["a", "c", "missing"], ["b", "d"])
    assert result.f2p_passed == ["a"]
    assert result.f2p_failed == ["c", "missing"]
    assert result.p2p_passed == ["b"]
    assert result.p2p_failed == ["d"]
    assert not result.resolved


def test_a_skipped_test_counts_neither_way() -> None:
    result = grade({"a": "PASSED", "s": "SKIPPED"}, ["a"], ["s"])
    assert result.p2p_passed == [] and result.p2p_failed == []
    assert result.resolved


def test_no_tests_to_check_is_resolved() -> None:
    assert grade({}, [], []).resolved


def test_a_test_that_fails_the_run_itself_is_never_resolved_by_an_empty_log() -> None:
    result = grade({}, ["t.py::test_issue"], [])
    assert not result.resolved
    assert result.f2p_failed == ["t.py::test_issue"]


def test_the_reason_counts_each_list_and_names_at_most_three_tests() -> None:
    f2p = [f"t.py::f{i}" for i in range(5)]
    result = grade({}, f2p, ["t.py::p"])
    assert result.reason() == (
        "5 FAIL_TO_PASS still failing: t.py::f0, t.py::f1, t.py::f2; 1 PASS_TO_PASS broken: t.py::p"
    )
    assert grade({"x": "PASSED"}, ["x"], []).reason() == "resolved"


def test_the_fair_mode_grades_with_its_own_names() -> None:
    result = grade({"r.py::t": "FAILED", "own.py::t": "PASSED"}, ["r.py::t"], ["own.py::t"],
                   names=OWN)  # fmt: skip
    assert result.reason() == "1 REPRODUCTION still failing: r.py::t"
    data = result.to_json()
    assert set(data) == {"resolved", "REPRODUCTION", "REGRESSION"}
    assert "FAIL_TO_PASS" not in result.reason() and "FAIL_TO_PASS" not in data


def test_the_grade_record_has_the_harness_report_shape() -> None:
    result = grade({"a": "PASSED", "b": "FAILED"}, ["a"], ["b"])
    assert result.names == HIDDEN
    assert result.to_json() == {
        "resolved": False,
        "FAIL_TO_PASS": {"success": ["a"], "failure": []},
        "PASS_TO_PASS": {"success": [], "failure": ["b"]},
    }


@pytest.mark.parametrize(
    ("status", "resolved"),
    [
        ({"t::f": "PASSED", "t::p": "PASSED"}, True),
        ({"t::f": "FAILED", "t::p": "PASSED"}, False),
        ({"t::f": "PASSED", "t::p": "ERROR"}, False),
        ({"t::f": "PASSED"}, False),  # a PASS_TO_PASS test that vanished is broken
    ],
)
def test_a_test_report_grades_against_the_instance_s_hidden_lists(
    status: dict[str, str], resolved: bool
) -> None:
    instance = Instance("o__r-1", "o/r", "abc", "issue", "patch",
                        fail_to_pass=("t::f",), pass_to_pass=("t::p",))  # fmt: skip
    report = Report("pytest -rA t.py", 1, "", status)
    assert report.grade(instance).resolved is resolved
