"""The JavaScript runners' reports read into per-test cases, specified from report fixtures
shaped as each runner writes them: node's runner through patchwright's reporter (one JSON
line per finished test), jest's and vitest's ``--json`` report, mocha's ``json`` reporter
(its file, or the JSON it printed last on stdout). Also the helpers every runner shares:
an error's message and detail, paths made relative to the repository, unique ids."""

from __future__ import annotations

import json
from pathlib import Path

from patchwright.verify.runners.common import add_case, clip, relative
from patchwright.verify.runners.jsreports import failure_text, read_jest, read_mocha, read_node
from patchwright.verify.testmodel import TestCase, TestRun

NODE_ASSERT = (
    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n-1 !== 5\n\n"
    "    at TestContext.<anonymous> (file://{root}/test/calc.test.js:4:10)\n"
    "    at Test.runInAsyncScope (node:async_hooks:206:9)\n"
)


def project(root: Path) -> Path:
    for rel in ("test/calc.test.js", "src/calc.js", "node_modules/lib/index.js"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("// code\n")
    return root


def lines(path: Path, *items: object) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    return path


def written(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path


# -- an error's message and detail ----------------------------------------------------------


def test_nodes_assertion_reads_as_one_message_with_the_values_it_compared(tmp_path: Path) -> None:
    root = project(tmp_path)
    message, detail = failure_text(NODE_ASSERT.format(root=root), root)
    assert message == "Expected values to be strictly equal: -1 !== 5"
    assert detail == "at test/calc.test.js:4:10"  # node's own frames are not the project's


def test_an_error_keeps_at_most_three_of_the_projects_frames_and_none_of_its_dependencies(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    raw = "\n".join([
        "TypeError: calc is not a function",
        f"    at add ({root}/src/calc.js:1:1)",
        f"    at lib ({root}/node_modules/lib/index.js:1:1)",
        f"    at Object.<anonymous> ({root}/test/calc.test.js:2:2)",
        f"    at {root}/src/calc.js:3:3",
        f"    at {root}/src/calc.js:4:4",
        f"    at {root}/src/gone.js:5:5",
    ])  # fmt: skip
    message, detail = failure_text(raw, root)
    assert message == "TypeError: calc is not a function"
    assert detail.splitlines() == [
        "at src/calc.js:1:1", "at test/calc.test.js:2:2", "at src/calc.js:3:3"]  # fmt: skip


def test_colour_codes_and_the_error_class_prefix_are_taken_out_of_a_message(
    tmp_path: Path,
) -> None:
    raw = "\x1b[31mError: \x1b[1mexpected 2\x1b[22m\x1b[39m\n\x1b[32mExpected: 2\x1b[39m\n"
    message, detail = failure_text(raw, tmp_path)
    assert message == "expected 2" and detail == "Expected: 2"
    assert failure_text("", tmp_path) == ("", "")


# -- node's runner --------------------------------------------------------------------------


def test_node_cases_are_named_by_file_and_suite_path_with_their_line(tmp_path: Path) -> None:
    root = project(tmp_path)
    file = f"{root}/test/calc.test.js"
    report = lines(
        tmp_path / "node.jsonl",
        {"names": ["calc", "adds"], "file": file, "line": 4, "outcome": "failed",
         "kind": "testCodeFailure", "error": NODE_ASSERT.format(root=root), "output": ""},
        {"names": ["calc", "subtracts"], "file": file, "line": 8, "outcome": "passed"},
        {"names": ["calc", "later"], "file": file, "line": 9, "outcome": "skipped"},
        {"names": ["calc"], "file": file, "line": 2, "outcome": "failed",
         "kind": "subtestsFailed", "suite": True, "error": "1 subtest failed"},
    )  # fmt: skip
    run = TestRun("node --test", 1, "")
    read_node(run, report, root)
    assert run.per_test
    assert {c.id: (c.outcome, c.path, c.line) for c in run.cases.values()} == {
        "test/calc.test.js::calc::adds": ("failed", "test/calc.test.js", 4),
        "test/calc.test.js::calc::subtracts": ("passed", "test/calc.test.js", 8),
        "test/calc.test.js::calc::later": ("skipped", "test/calc.test.js", 9),
    }  # the suite that failed because a test in it did is not a failure of its own
    adds = run.cases["test/calc.test.js::calc::adds"]
    assert adds.message == "Expected values to be strictly equal: -1 !== 5"


def test_a_node_file_that_fails_before_any_test_is_an_error_saying_what_it_printed(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    file = f"{root}/test/calc.test.js"
    stderr = f"Error: Cannot find module './gone'\n    at {root}/test/calc.test.js:1:1\n"
    report = lines(tmp_path / "node.jsonl",
                   {"names": [file], "file": file, "outcome": "failed",
                    "error": "test failed", "output": stderr})  # fmt: skip
    run = TestRun("node --test", 1, "")
    read_node(run, report, root)
    [case] = run.cases.values()
    assert (case.id, case.outcome) == ("test/calc.test.js", "error")
    assert case.message == "Cannot find module './gone'"
    assert case.detail == "at test/calc.test.js:1:1"


def test_unreadable_node_lines_are_passed_over_and_a_missing_report_reads_nothing(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    report = tmp_path / "node.jsonl"
    report.write_text('not json\n[1, 2]\n{"names": ["t"], "file": "", "outcome": "weird"}\n')
    run = TestRun("node --test", 1, "")
    read_node(run, report, root)
    assert {c.id: c.outcome for c in run.cases.values()} == {"t": "error"}
    none = TestRun("node --test", 0, "")
    read_node(none, tmp_path / "absent.jsonl", root)
    assert none.cases == {} and not none.per_test  # judged by its exit code


# -- jest and vitest ------------------------------------------------------------------------


def test_every_status_that_is_not_passed_or_failed_is_a_skip(tmp_path: Path) -> None:
    root = project(tmp_path)
    statuses = ["passed", "failed", "pending", "skipped", "todo", "disabled", "focused"]
    data = {"testResults": [{"name": f"{root}/test/calc.test.js", "status": "failed",
                             "assertionResults": [{"ancestorTitles": [], "title": s, "status": s,
                                                   "failureMessages": ["Error: x"]}
                                                  for s in statuses]}]}  # fmt: skip
    run = TestRun("vitest run", 1, "")
    read_jest(run, written(tmp_path / "r.json", data), root)
    outcomes = {c.id.split("::")[-1]: c.outcome for c in run.cases.values()}
    assert outcomes == {"passed": "passed", "failed": "failed", "pending": "skipped",
                        "skipped": "skipped", "todo": "skipped", "disabled": "skipped",
                        "focused": "skipped"}  # fmt: skip


def test_two_tests_of_one_name_are_both_kept_the_second_numbered(tmp_path: Path) -> None:
    root = project(tmp_path)
    twin = {"ancestorTitles": ["calc"], "title": "adds", "status": "passed"}
    data = {"testResults": [{"name": "test/calc.test.js", "status": "passed",
                             "assertionResults": [twin, {**twin, "status": "failed"}]}]}  # fmt: skip
    run = TestRun("jest", 1, "")
    read_jest(run, written(tmp_path / "r.json", data), root)
    assert {c.id: c.outcome for c in run.cases.values()} == {
        "test/calc.test.js::calc::adds": "passed",
        "test/calc.test.js::calc::adds #2": "failed",
    }


def test_a_test_file_that_failed_without_a_message_still_fails_as_a_whole(tmp_path: Path) -> None:
    root = project(tmp_path)
    data = {"testResults": [
        {"name": f"{root}/test/calc.test.js", "status": "failed", "message": "",
         "assertionResults": [{"ancestorTitles": [], "title": "ok", "status": "passed"}]},
    ]}  # fmt: skip
    run = TestRun("jest", 1, "")
    read_jest(run, written(tmp_path / "r.json", data), root)
    whole = run.cases["test/calc.test.js"]
    assert whole.outcome == "error" and whole.message == "the test file failed to run"
    assert run.cases["test/calc.test.js::ok"].outcome == "passed"


def test_a_report_that_is_not_jests_shape_reads_nothing(tmp_path: Path) -> None:
    for data in ([], {"testResults": "none"}, {"numTotalTests": 0}):
        run = TestRun("jest", 1, "")
        read_jest(run, written(tmp_path / "r.json", data), tmp_path)
        assert run.cases == {} and not run.per_test


# -- mocha ----------------------------------------------------------------------------------


def test_mocha_without_a_report_file_is_read_from_the_json_it_printed_last(tmp_path: Path) -> None:
    root = project(tmp_path)
    file = f"{root}/test/calc.test.js"
    data = {"stats": {"tests": 1}, "tests": [{"title": "adds", "fullTitle": "calc adds",
                                              "file": file, "err": {}}],
            "pending": [], "failures": []}  # fmt: skip
    stdout = "console noise from a test\n" + json.dumps(data, indent=2)
    run = TestRun("mocha", 0, stdout)
    read_mocha(run, tmp_path / "absent.json", stdout, root)
    assert {c.id: c.outcome for c in run.cases.values()} == {
        "test/calc.test.js::calc::adds": "passed"
    }
    assert run.per_test
    garbled = TestRun("mocha", 1, "")
    read_mocha(garbled, tmp_path / "absent.json", '{\n  "stats": {', root)
    assert garbled.cases == {} and not garbled.per_test


def test_a_failing_mocha_hook_is_a_case_of_its_own(tmp_path: Path) -> None:
    root = project(tmp_path)
    file = f"{root}/test/calc.test.js"
    hook = {"title": '"before each" hook for "adds"', "fullTitle": 'calc "before each" hook for "adds"',
            "file": file, "err": {"message": "db down", "stack": "Error: db down"}}  # fmt: skip
    data = {"tests": [], "pending": [], "failures": [hook]}
    run = TestRun("mocha", 1, "")
    read_mocha(run, written(tmp_path / "m.json", data), "", root)
    [case] = run.cases.values()
    assert case.id == 'test/calc.test.js::calc::"before each" hook for "adds"'
    assert (case.outcome, case.message) == ("failed", "db down")


def test_a_mocha_test_listed_again_among_the_failures_is_one_case(tmp_path: Path) -> None:
    root = project(tmp_path)
    failed = {"title": "adds", "fullTitle": "calc adds", "file": f"{root}/test/calc.test.js",
              "err": {"message": "expected 1 to equal 2"}}  # fmt: skip
    data = {"tests": [failed], "pending": [], "failures": [failed]}
    run = TestRun("mocha", 1, "")
    read_mocha(run, written(tmp_path / "m.json", data), "", root)
    assert list(run.cases) == ["test/calc.test.js::calc::adds"]
    assert run.cases["test/calc.test.js::calc::adds"].message == "expected 1 to equal 2"


# -- helpers the runners share --------------------------------------------------------------


def test_a_reported_path_is_made_relative_to_the_repository_or_refused(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert relative(f"{root}/test/calc.test.js", root) == "test/calc.test.js"
    assert relative(f"file://{root}/src/calc.js", root) == "src/calc.js"
    assert relative("src/calc.js", root) == "src/calc.js"
    assert relative(str(root), root) == ""
    assert relative("/elsewhere/calc.js", root) is None


def test_a_path_through_a_symlinked_root_is_still_the_repositorys(tmp_path: Path) -> None:
    real = project(tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real)
    assert relative(f"{real}/src/calc.js", link) == "src/calc.js"
    assert relative(f"{link}/src/calc.js", real) == "src/calc.js"


def test_cases_of_one_id_are_numbered_in_the_order_they_came() -> None:
    run = TestRun("x", 0, "")
    for outcome in ("passed", "failed", "skipped"):
        add_case(run, TestCase("t::a", outcome))  # type: ignore[arg-type]
    assert {i: c.outcome for i, c in run.cases.items()} == {
        "t::a": "passed", "t::a #2": "failed", "t::a #3": "skipped"}  # fmt: skip
    assert run.cases["t::a #3"].id == "t::a #3"


def test_clip_keeps_the_first_non_empty_lines_within_a_character_budget() -> None:
    assert clip(["a  ", "", "  ", "b", "c"], count=2) == "a\nb"
    assert clip(["x" * 50], chars=10) == "x" * 10
