"""jest's and mocha's JSON reports read into per-test outcomes: ids ``file::suite::test``
relative to the repository, an assertion's first line as the message, its expected/received
lines and the repository's own stack frames as the detail, a file that failed to load as
one error."""

from __future__ import annotations

import json
from pathlib import Path

from patchwright.verify.runners.jsreports import read_jest, read_mocha
from patchwright.verify.testmodel import TestRun

FAILURE = (
    "Error: expect(received).toBe(expected) // Object.is equality\n\n"
    "Expected: 5\nReceived: -1\n"
    "    at Object.<anonymous> ({root}/test/calc.test.js:3:58)\n"
    "    at Promise.then.completed ({root}/node_modules/jest-circus/build/utils.js:298:28)\n"
)


def report(tmp_path: Path, data: object) -> Path:
    for name in ("calc.test.js", "calc.spec.js"):  # a frame counts when its file is the repo's
        (tmp_path / "test").mkdir(exist_ok=True)
        (tmp_path / "test" / name).write_text("// tests\n")
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    return path


def test_jest_cases_carry_their_suite_line_and_the_assertion(tmp_path: Path) -> None:
    root = tmp_path
    data = {"testResults": [{
        "name": f"{root}/test/calc.test.js", "status": "failed",
        "assertionResults": [
            {"ancestorTitles": ["calc"], "title": "adds", "status": "failed",
             "location": {"line": 3, "column": 3},
             "failureMessages": [FAILURE.format(root=root)]},
            {"ancestorTitles": ["calc"], "title": "subtracts", "status": "passed"},
            {"ancestorTitles": [], "title": "later", "status": "pending"},
        ],
    }]}  # fmt: skip
    run = TestRun("jest --json", 1, "")
    read_jest(run, report(tmp_path, data), root)
    assert {c.id: c.outcome for c in run.cases.values()} == {
        "test/calc.test.js::calc::adds": "failed",
        "test/calc.test.js::calc::subtracts": "passed",
        "test/calc.test.js::later": "skipped",
    }
    failed = run.cases["test/calc.test.js::calc::adds"]
    assert failed.line == 3 and failed.message.startswith("expect(received).toBe(expected)")
    assert "Expected: 5" in failed.detail and "Received: -1" in failed.detail
    assert "at test/calc.test.js:3:58" in failed.detail  # the repository's frame, relative
    assert "node_modules" not in failed.detail and run.per_test


def test_a_jest_file_that_fails_to_load_is_one_error_case(tmp_path: Path) -> None:
    data = {"testResults": [{"name": f"{tmp_path}/test/broken.test.js", "status": "failed",
                             "message": "Cannot find module '../src/gone' from 'test/broken.test.js'",
                             "assertionResults": []}]}  # fmt: skip
    run = TestRun("jest --json", 1, "")
    read_jest(run, report(tmp_path, data), tmp_path)
    [case] = run.cases.values()
    assert (case.id, case.outcome) == ("test/broken.test.js", "error")
    assert "Cannot find module '../src/gone'" in case.message


def test_no_report_leaves_the_run_to_be_judged_by_its_exit_code(tmp_path: Path) -> None:
    run = TestRun("jest --json", 1, "")
    read_jest(run, tmp_path / "missing.json", tmp_path)
    assert run.cases == {} and not run.per_test


def test_mocha_cases_pending_ones_skipped_and_a_failure_s_message(tmp_path: Path) -> None:
    file = f"{tmp_path}/test/calc.spec.js"
    err = {
        "message": "expected -1 to equal 5",
        "stack": f"AssertionError: expected -1 to equal 5\n    at Context.<anonymous> ({file}:4:20)",
    }
    data = {
        "tests": [
            {"title": "adds", "fullTitle": "calc adds", "file": file, "err": err},
            {"title": "subtracts", "fullTitle": "calc subtracts", "file": file, "err": {}},
            {"title": "later", "fullTitle": "calc later", "file": file, "err": {}},
        ],
        "pending": [{"title": "later", "fullTitle": "calc later", "file": file}],
        "failures": [],
    }  # fmt: skip
    run = TestRun("mocha --reporter json", 1, "")
    read_mocha(run, report(tmp_path, data), "", tmp_path)
    assert {c.id: c.outcome for c in run.cases.values()} == {
        "test/calc.spec.js::calc::adds": "failed",
        "test/calc.spec.js::calc::subtracts": "passed",
        "test/calc.spec.js::calc::later": "skipped",
    }
    failed = run.cases["test/calc.spec.js::calc::adds"]
    assert "expected -1 to equal 5" in failed.message
    assert "test/calc.spec.js:4:20" in failed.detail
