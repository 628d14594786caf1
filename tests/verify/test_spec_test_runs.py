"""A pytest run read through its junit report, and the tests gate's verdict on it, specified
with a stand-in ``./pytest``: a shell script (any command whose program is named ``pytest``
is run as pytest) that copies a junit file of the repository to where ``--junitxml`` asks
and exits with a chosen code. The reports are written as pytest's xunit1 writes them.

What is specified: each ``<testcase>`` becomes one case with pytest's id, its file, its
1-based line, its outcome and a short message; a run that wrote no report or an unreadable
one, or ended in pytest's internal error, is broken (``problem``), never green; a command that
could not start says why; and the gate fails only on tests that did not fail at baseline
time, reports the fixed ones, and says what it could not compare."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, TestsGate, run_gates, run_tests, take_baseline
from patchwright.verify.testmodel import TestCase, TestRun, is_pytest

FAKE = """#!/bin/sh
for arg in "$@"; do
  case "$arg" in --junitxml=*) [ -f report.xml ] && cp report.xml "${arg#--junitxml=}";; esac
done
[ -f said.txt ] && cat said.txt
exit "$(cat code.txt 2>/dev/null || echo 0)"
"""
CMD = "./pytest"


def junit(*cases: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">'
            + "".join(cases) + "</testsuite></testsuites>")  # fmt: skip


def case(name: str, classname: str = "tests.test_a", line: int = 0, inner: str = "") -> str:
    head = f'<testcase classname="{classname}" name="{name}" file="tests/test_a.py" line="{line}"'
    return f"{head}>{inner}</testcase>" if inner else f"{head} />"


def failure(message: str, text: str = "", tag: str = "failure") -> str:
    return f'<{tag} message="{message}">{text}</{tag}>'


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pytest").write_text(FAKE)
    (root / "pytest").chmod(0o755)
    return root


@pytest.fixture
def box(repo: Path) -> Iterator[Sandbox]:
    sandbox = Sandbox(repo)
    yield sandbox
    sandbox.close()


Reported = Callable[..., TestRun]


@pytest.fixture
def reported(repo: Path, box: Sandbox) -> Reported:
    """``reported(xml, code=0, said="")``: the run of ``./pytest`` that wrote ``xml`` (None:
    no report) and exited ``code``."""

    def _run(xml: str | None, code: int = 0, said: str = "", cmd: str = CMD) -> TestRun:
        stage(repo, xml, code, said)
        return run_tests(repo, box, cmd, timeout=30)

    return _run


def stage(repo: Path, xml: str | None, code: int = 0, said: str = "") -> None:
    report = repo / "report.xml"
    report.unlink(missing_ok=True)
    if xml is not None:
        report.write_text(xml)
    (repo / "code.txt").write_text(f"{code}\n")
    (repo / "said.txt").write_text(said)


# -- reading the report ---------------------------------------------------------------------


def test_a_command_is_pytest_when_its_program_is_named_pytest() -> None:
    assert is_pytest("pytest -q") and is_pytest("python -m pytest") and is_pytest(CMD)
    assert is_pytest("/venv/bin/pytest tests") and is_pytest("py.test")
    assert not is_pytest("npm test") and not is_pytest("pytest-watch")
    assert not is_pytest("echo 'unbalanced")  # a line shlex cannot split is not pytest


def test_each_testcase_is_a_case_with_pytests_id_file_line_and_outcome(
    reported: Reported,
) -> None:
    xml = junit(
        case("test_y", "tests.test_a.TestX", 2,
             failure("AssertionError: one is not two&#10;assert 1 == 2")),
        case("test_ok", line=4),
        case("test_skip", line=5, inner=failure("later", tag="skipped")),
        case("test_err", line=9, inner=failure("failed on setup", tag="error")),
        case("test_p[1-2]", line=11),
    )  # fmt: skip
    run = reported(xml, code=1)
    assert run.per_test and run.runner == "pytest" and run.problem is None
    got = {c.id: (c.outcome, c.path, c.line) for c in run.cases.values()}
    assert got == {
        "tests/test_a.py::TestX::test_y": ("failed", "tests/test_a.py", 3),
        "tests/test_a.py::test_ok": ("passed", "tests/test_a.py", 5),
        "tests/test_a.py::test_skip": ("skipped", "tests/test_a.py", 6),
        "tests/test_a.py::test_err": ("error", "tests/test_a.py", 10),
        "tests/test_a.py::test_p[1-2]": ("passed", "tests/test_a.py", 12),
    }
    # the message is the assertion's first line; the skip keeps its reason
    assert run.cases["tests/test_a.py::TestX::test_y"].message == "AssertionError: one is not two"
    assert run.cases["tests/test_a.py::test_skip"].message == "later"
    assert run.failing == {"tests/test_a.py::TestX::test_y", "tests/test_a.py::test_err"}
    assert "tests/test_a.py::test_ok" in run.passing and not run.green


def test_a_module_that_failed_to_collect_is_one_error_named_by_its_file(
    reported: Reported,
) -> None:
    trace = "Traceback:\ntests/test_b.py:1: in &lt;module&gt;\n    import nope\n" + (
        "E   ModuleNotFoundError: No module named 'nope'"
    )
    xml = junit('<testcase classname="" name="tests.test_b" file="tests/test_b.py" time="0">'
                f'{failure("collection failure", trace, tag="error")}</testcase>')  # fmt: skip
    run = reported(xml, code=2)
    [only] = run.cases.values()
    assert (only.id, only.outcome, only.path) == ("tests/test_b.py", "error", "tests/test_b.py")
    assert only.message == "collection failure"
    assert "No module named 'nope'" in only.detail
    assert run.only_import_errors  # nothing but modules that did not import: nothing tested


def test_a_failure_detail_is_where_it_failed_and_its_assertion_lines() -> None:
    from patchwright.verify.testrun import failure_gist

    trace = "\n".join(["self = <x>", "", "    def test_y(self):", ">       assert f() == 3",
                       "E       assert 2 == 3", "E        +  where 2 = f()", "",
                       "tests/helpers.py:8: in f", "tests/test_a.py:4: AssertionError"])  # fmt: skip
    assert failure_gist(trace).splitlines() == [
        "tests/helpers.py:8: in f", "tests/test_a.py:4: AssertionError", "> assert f() == 3",
        "E       assert 2 == 3", "E        +  where 2 = f()",
    ]  # fmt: skip
    long = "\n".join(f"l{i}" for i in range(40))
    assert failure_gist(long) == "\n".join(f"l{i}" for i in range(28, 40))  # the tail


def test_a_failure_deeper_than_the_test_shows_the_tests_statement_and_the_innermost() -> None:
    from patchwright.verify.testrun import failure_gist

    trace = "\n".join([
        "    def test_add(self):", ">       self.assertEqual(str(Clock(10, 0) + 3), '10:03')", "",
        "clock_test.py:86: ", "", "    def __add__(self, minutes):",
        ">       return Clock(self.hour, self.minute + minutes.total)",
        "E       AttributeError: 'int' object has no attribute 'total'", "",
        "clock.py:9: AttributeError",
    ])  # fmt: skip
    assert failure_gist(trace).splitlines() == [
        "clock_test.py:86: ", "clock.py:9: AttributeError",
        "> self.assertEqual(str(Clock(10, 0) + 3), '10:03')",
        "> return Clock(self.hour, self.minute + minutes.total)",
        "E       AttributeError: 'int' object has no attribute 'total'",
    ]  # fmt: skip


def test_a_failed_statement_over_several_lines_is_quoted_whole_on_one() -> None:
    from patchwright.verify.testrun import failure_gist

    trace = "\n".join(["    def test_8_items(self):", ">       self.assertEqual(",
                       "            maximum_value(10, [{'weight': 5, 'value': 10}]),",
                       "            10,", "        )", "E       AssertionError: None != 10", "",
                       "knapsack_test.py:64: AssertionError"])  # fmt: skip
    assert failure_gist(trace).splitlines()[1] == (
        "> self.assertEqual( maximum_value(10, [{'weight': 5, 'value': 10}]), 10, )"
    )
    many = trace.replace("            10,", "\n".join(["            {'weight': 5},"] * 60))
    quoted = failure_gist(many).splitlines()[1]
    assert len(quoted) <= 302 and quoted.endswith(" …")


def test_difflibs_guide_lines_are_left_out_of_a_failure_detail() -> None:
    from patchwright.verify.testrun import failure_gist

    trace = "\n".join([">       self.assertEqual(s, '00:01')", "E       AssertionError: '01:01' != '00:01'",
                       "E       - 01:01", "E       ?  ^", "E       + 00:01", "E       ?  ^", "",
                       "clock_test.py:101: AssertionError"])  # fmt: skip
    assert failure_gist(trace).splitlines() == [
        "clock_test.py:101: AssertionError", "> self.assertEqual(s, '00:01')",
        "E       AssertionError: '01:01' != '00:01'", "E       - 01:01", "E       + 00:01",
    ]  # fmt: skip


def test_object_addresses_in_a_report_are_masked_so_a_failure_reads_the_same(
    reported: Reported,
) -> None:
    text = "E   assert &lt;function f at 0x7f3a9c1b2d30&gt;() == 3"
    run = reported(junit(case("test_y", inner=failure("assert", text))), code=1,
                   said="<object at 0xdeadbeef12>\n")  # fmt: skip
    assert "0x…" in run.cases["tests/test_a.py::test_y"].detail
    assert "7f3a9c1b2d30" not in run.cases["tests/test_a.py::test_y"].detail
    assert "<object at 0x…>" in run.output


@pytest.mark.parametrize(
    ("xml", "code", "problem"),
    [
        (None, 2, "pytest exited 2 without writing a report"),
        ("<testsuites><testsuite>", 1, "unreadable junit report"),
        (junit(case("test_ok")), 3, "pytest exited 3 (interrupted or internal error)"),
    ],
    ids=["no report", "a cut report", "internal error"],
)
def test_a_run_that_left_no_trustworthy_report_is_broken_never_green(
    reported: Reported, xml: str | None, code: int, problem: str
) -> None:
    run = reported(xml, code=code)
    assert run.problem is not None and run.problem.startswith(problem)
    assert not run.green


def test_a_run_without_a_report_that_exited_0_or_5_is_not_broken(reported: Reported) -> None:
    ok = reported(None, code=0)
    assert ok.problem is None and ok.green and not ok.per_test
    nothing = reported(None, code=5)
    assert nothing.collected_nothing and nothing.green
    other = TestRun("npm test", 5, "")  # for another runner 5 is just a failure
    assert not other.collected_nothing and not other.green


def test_a_command_that_could_not_start_says_why_in_the_shells_words(reported: Reported) -> None:
    absent = reported(None, cmd="./no-such-pytest -q")
    assert absent.exit_code == 127 and absent.missing_tool is not None
    assert "not found" in absent.missing_tool
    assert absent.cannot_start == absent.missing_tool
    unlisted = reported(None, code=1, said="/usr/bin/python3: No module named pytest\n")
    assert unlisted.missing_tool is not None
    assert unlisted.missing_tool.startswith("pytest is not installed for this interpreter")


def test_a_test_run_outside_the_sandbox_policy_names_the_rule_that_refused_it() -> None:
    run = TestRun("sudo pytest", None, "", blocked="policy:sudo")
    assert run.cannot_start == "the sandbox blocked it (policy:sudo)"
    assert TestRun("pytest", 0, "").cannot_start is None


def test_a_failure_raised_as_its_module_is_collected_is_not_an_import_error() -> None:
    run = TestRun("pytest", 2, "")
    run.cases = {"t.py": TestCase("t.py", "error", "t.py", None, "collection failure",
                                  "E   AssertionError: assert 3 == 2")}  # fmt: skip
    assert not run.only_import_errors
    assert not TestRun("pytest", 2, "").only_import_errors  # no case at all: not this either


# -- the gate's verdict against the baseline ------------------------------------------------


def verdict(repo: Path, box: Sandbox, before: Baseline) -> Any:
    [result] = run_gates(repo, box, before, touched=[], test_cmd=CMD, gates=[TestsGate()])
    return result


def baseline_of(repo: Path, box: Sandbox, xml: str | None, code: int = 0) -> Baseline:
    stage(repo, xml, code)
    return take_baseline(repo, box, test_cmd=CMD, test_timeout=30)


def test_only_tests_that_did_not_fail_before_fail_the_gate_and_fixed_ones_are_reported(
    repo: Path, box: Sandbox
) -> None:
    bad = failure("assert 1 == 2")
    before = baseline_of(repo, box, junit(case("test_old", inner=bad), case("test_fixed", inner=bad),
                                          case("test_ok")), code=1)  # fmt: skip
    assert before.failing_tests == {"tests/test_a.py::test_old", "tests/test_a.py::test_fixed"}
    stage(repo, junit(case("test_old", inner=bad), case("test_fixed"), case("test_ok", inner=bad),
                      case("test_added", inner=bad)), code=1)  # fmt: skip
    result = verdict(repo, box, before)
    assert result.status == "failed"
    assert [p.message for p in result.new_problems] == [
        "tests/test_a.py::test_added", "tests/test_a.py::test_ok"]  # fmt: skip
    assert [p.message for p in result.fixed_problems] == ["tests/test_a.py::test_fixed"]
    assert result.reason == "1 test(s) already failing at baseline still fail"
    assert result.test_run is not None and result.test_run.runner == "pytest"
    assert result.new_problems[0].detail == "assert 1 == 2"


def test_a_test_that_passed_before_and_no_longer_runs_is_noted(repo: Path, box: Sandbox) -> None:
    before = baseline_of(repo, box, junit(case("test_a"), case("test_b")))
    stage(repo, junit(case("test_a")))
    result = verdict(repo, box, before)
    assert result.status == "passed"
    assert (
        result.reason == "1 test(s) that passed at baseline no longer ran: tests/test_a.py::test_b"
    )


def test_a_suite_that_now_exits_non_zero_with_every_test_passing_fails_when_it_was_green(
    repo: Path, box: Sandbox
) -> None:
    before = baseline_of(repo, box, junit(case("test_a")))
    stage(repo, junit(case("test_a")), code=1)  # e.g. a session fixture's teardown broke
    result = verdict(repo, box, before)
    assert result.status == "failed"
    [problem] = result.new_problems
    assert (problem.code, problem.message) == ("run", f"{CMD} exited 1")


def test_a_suite_that_exited_non_zero_before_as_well_is_not_blamed_on_the_change(
    repo: Path, box: Sandbox
) -> None:
    before = baseline_of(repo, box, junit(case("test_a")), code=1)
    stage(repo, junit(case("test_a")), code=1)
    result = verdict(repo, box, before)
    assert result.status == "passed" and result.reason == "suite exited 1, as it did at baseline"


def test_collecting_nothing_after_tests_ran_before_fails_the_gate(repo: Path, box: Sandbox) -> None:
    before = baseline_of(repo, box, junit(case("test_a"), case("test_b")))
    stage(repo, None, code=5)
    result = verdict(repo, box, before)
    assert result.status == "failed"
    assert result.new_problems[0].message == (
        f"{CMD} collected no tests (exit 5); 2 passed before the change"
    )


def test_a_run_the_change_broke_fails_the_gate(repo: Path, box: Sandbox) -> None:
    green = baseline_of(repo, box, junit(case("test_a")))
    stage(repo, None, code=2)
    broke = verdict(repo, box, green)
    assert broke.status == "failed"
    assert broke.new_problems[0].message == "pytest exited 2 without writing a report"


def test_a_run_already_broken_before_the_change_has_no_verdict(repo: Path, box: Sandbox) -> None:
    broken = baseline_of(repo, box, None, code=2)
    still = verdict(repo, box, broken)
    assert (still.status, still.ok, still.could_not_run) == ("could_not_run", False, True)
    assert "already broken before the change" in (still.reason or "")


def test_without_a_baseline_run_every_failure_counts_as_new(repo: Path, box: Sandbox) -> None:
    stage(repo, junit(case("test_a", inner=failure("boom"))), code=1)
    nothing = Baseline(root=repo, texts={}, paths=frozenset())  # tests were not run before
    result = verdict(repo, box, nothing)
    assert result.status == "failed"
    assert [p.message for p in result.new_problems] == ["tests/test_a.py::test_a"]
    assert result.reason == "no baseline test run: every failure counts as new"


def test_a_suite_judged_by_exit_code_that_turns_green_reports_the_old_failure_fixed(
    repo: Path, box: Sandbox
) -> None:
    before = Baseline(root=repo, texts={}, paths=frozenset(),
                      tests=TestRun("make check", 2, "failed"))  # fmt: skip
    stage(repo, junit(case("test_a")))
    result = verdict(repo, box, before)
    assert result.status == "passed"
    [fixed] = result.fixed_problems
    assert (fixed.code, fixed.message) == ("run", "make check exited 2")


def test_a_failed_gate_shows_what_the_run_said_less_pytests_session_header(
    repo: Path, box: Sandbox
) -> None:
    before = Baseline(root=repo, texts={}, paths=frozenset(), tests=TestRun(CMD, 0, ""))
    said = "platform linux -- Python 3.11.7, pytest-8.0\nrootdir: /r\nINTERNALERROR> boom\n"
    stage(repo, None, code=3, said=said)
    result = verdict(repo, box, before)
    assert result.status == "failed"
    assert result.new_problems[0].message == "pytest exited 3 without writing a report"
    assert result.output == "INTERNALERROR> boom"
