"""A repair quotes the lines of the rejected change that its errors point at."""

from __future__ import annotations

from patchwright.agent.pointed_lines import (
    CODE_HEADING,
    HEADING,
    TEST_HEADING,
    brief,
    pointed_lines,
    rejection_report,
    where,
    where_in_code,
    where_in_tests,
)

GO = """package main

func Mean(numbers []float64) float64 {
    sum := 0.0
    for _, x := range numbers {
        sum += x
    }

    return sum / len(numbers)
}
"""


def test_a_go_build_error_quotes_the_line_it_names() -> None:
    report = (
        "tests gate failed with 1 new problem:\n- .::[build] (error)\n"
        "    build failed: main.go:9: invalid operation: sum / len(numbers) "
        "(mismatched types float64 and int)"
    )
    assert pointed_lines(report, {"main.go": GO}) == ["main.go:9: `return sum / len(numbers)`"]
    assert where(report, {"main.go": GO}) == f"{HEADING}\n- main.go:9: `return sum / len(numbers)`"


def test_each_line_once_in_order_of_mention_and_only_lines_of_changed_files() -> None:
    report = "\n".join([
        "main.go:9:12: invalid operation",
        "main_test.go:10: Not equal",  # a test file the change did not touch
        "main.go:4: declared and not used: sum",
        "main.go:9: again",
        "./main.go:6: ./ as go vet prints it",
        "main.go:8: a blank line",
        "main.go:99: past the end",
    ])  # fmt: skip
    assert pointed_lines(report, {"main.go": GO}) == [
        "main.go:9: `return sum / len(numbers)`",
        "main.go:4: `sum := 0.0`",
        "./main.go:6: `sum += x`",
    ]


def test_a_python_traceback_and_a_rust_location_are_read() -> None:
    py = "def f(x):\n    return x / 0\n"
    rs = "fn f() -> i32 {\n    let y = z;\n    y\n}\n"
    report = (
        'File "calc.py", line 2, in f\nZeroDivisionError: division by zero\n'
        "error[E0425]: cannot find value `z` in this scope (src/lib.rs:2)"
    )
    assert pointed_lines(report, {"calc.py": py, "src/lib.rs": rs}) == [
        "calc.py:2: `return x / 0`",
        "src/lib.rs:2: `let y = z;`",
    ]


def test_nothing_when_the_report_names_no_line_of_the_change() -> None:
    assert (
        where("main_test.go:11: Not equal: expected: true actual  : false", {"main.go": GO}) == ""
    )
    assert where("main.go:3: deleted", {"main.go": None}) == ""


NODE_TEST = """const assert = require('node:assert');
console.assert = (cond, ...msg) =>
  assert.ok(cond, msg.length ? msg.join(' ') : 'console.assert failed');
const { makePalindrome } = require('./main.js');

const testMakePalindrome = () => {
  console.assert(makePalindrome('') === '')
  console.assert(makePalindrome('xyz') === 'xyzyx')
}
testMakePalindrome()
"""


def test_a_read_only_test_line_the_report_names_without_its_code_is_quoted() -> None:
    report = (
        "`node main.test.js` exited 1:\n\nAssertionError [ERR_ASSERTION]: console.assert failed\n"
        "    at console.assert (main.test.js:3:3)\n"
        "    at testMakePalindrome (main.test.js:8:11)\n"
    )
    assert where_in_tests(report, {"main.test.js": NODE_TEST}) == "\n".join([
        TEST_HEADING,  # the shim's `assert.ok(cond, …)` at line 3 gives way
        "- main.test.js:8: `console.assert(makePalindrome('xyz') === 'xyzyx')`",
    ])  # fmt: skip


def test_a_test_line_the_report_already_shows_is_not_quoted_again() -> None:
    py = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    report = "tests/test_calc.py:5: in test_add\n    assert add(2, 3) == 5\nE   assert -1 == 5"  # pytest quotes the failing line itself
    assert where_in_tests(report, {"tests/test_calc.py": py}) == ""


def test_a_rejection_report_quotes_the_change_then_the_tests() -> None:
    report, lost = rejection_report(
        "main.go:9: invalid operation\nmain_test.go:3: Not equal",
        {"main.go": GO},
        {"main.go": GO},
        {"main_test.go": "package main\n\nfunc TestMean(t *testing.T) { check(t) }\n"},
    )
    assert report.splitlines()[2:] == [
        HEADING,
        "- main.go:9: `return sum / len(numbers)`",
        TEST_HEADING,
        "- main_test.go:3: `func TestMean(t *testing.T) { check(t) }`",
    ]
    assert lost == []


def test_a_test_line_that_opens_a_statement_is_quoted_with_the_lines_that_close_it() -> None:
    tests = (
        "func TestOddCount(t *testing.T) {\n"
        "    assert.Equal([]string{\n"
        '        "2 of the 2nput.",\n'
        '        "3 of the 3nput."}, OddCount([]string{"271", "137"}))\n'
        "}\n"
    )
    report = 'main_test.go:2: Not equal: expected: []string{"2 of the 2nput.", …'
    assert pointed_lines(report, {"main_test.go": tests}, unquoted=True) == [
        'main_test.go:2: `assert.Equal([]string{ "2 of the 2nput.", "3 of the 3nput."}, '
        'OddCount([]string{"271", "137"}))`'
    ]


def test_brackets_inside_strings_leave_the_statement_on_its_line() -> None:
    """HumanEvalFix Go-132: `IsNested("[[]][[")` opens no bracket; read as two, the quote
    ran on over the next four assertions."""
    tests = (
        'func TestIsNested(t *testing.T) {\n    assert.Equal(true, IsNested("[[]][["))\n'
        '    assert.Equal(false, IsNested(""))\n}\n'
    )
    report = "main_test.go:2: Not equal: expected: true actual  : false"
    assert pointed_lines(report, {"main_test.go": tests}, unquoted=True) == [
        'main_test.go:2: `assert.Equal(true, IsNested("[[]][["))`'
    ]


def test_the_calls_a_stack_passes_through_give_way_to_the_checks() -> None:
    """HumanEvalFix JavaScript: `at testMatchParens (main.test.js:3:11)` and `at Object.<anonymous>
    (main.test.js:6:1)`, the call of the test function, took one of the four lines."""
    tests = (
        "const testMatchParens = () => {\n  const r = 1\n  console.assert(matchParens(['()(', ')']) "
        "=== 'Yes')\n}\n\ntestMatchParens()\n"
    )
    stack = "at testMatchParens (main.test.js:3:11)\n at Object.<anonymous> (main.test.js:6:1)"
    assert pointed_lines(stack, {"main.test.js": tests}, unquoted=True) == [
        "main.test.js:3: `console.assert(matchParens(['()(', ')']) === 'Yes')`"
    ]
    only_call = "at Object.<anonymous> (main.test.js:6:1)"
    assert pointed_lines(only_call, {"main.test.js": tests}, unquoted=True) == [
        "main.test.js:6: `testMatchParens()`"
    ]


def test_an_assertion_of_one_bare_name_in_a_helper_gives_way_to_the_line_that_called_it() -> None:
    """The HumanEvalFix JavaScript shim's `assert.ok(cond, …)` took one of the four lines."""
    tests = (
        "const assert = require('node:assert');\nconsole.assert = (cond, ...msg) =>\n"
        "  assert.ok(cond, msg.length ? msg.join(' ') : 'failed');\n"
        "const t = () => {\n  console.assert(f(0) === 'db0db')\n}\nt()\n"
    )
    stack = "at console.assert (main.test.js:3:10)\n at t (main.test.js:5:11)"
    assert pointed_lines(stack, {"main.test.js": tests}, unquoted=True) == [
        "main.test.js:5: `console.assert(f(0) === 'db0db')`"
    ]
    helper = "def check(ok):\n    assert ok\n"
    assert pointed_lines("t.py:2", {"t.py": helper}, unquoted=True) == ["t.py:2: `assert ok`"]


def test_a_line_that_opens_a_block_is_quoted_alone() -> None:
    assert pointed_lines("main.go:3: missing return", {"main.go": GO}) == [
        "main.go:3: `func Mean(numbers []float64) float64 {`"
    ]


def test_a_brief_keeps_the_pointed_test_lines_whole_and_the_head_first() -> None:
    head = [f"line {n}" for n in range(10)]
    pointed = [TEST_HEADING, "- t.js:9: `check(1)`", "- t.js:12: `check(2)`"]

    assert brief([*head, *pointed], 8) == [*head[:5], *pointed]
    assert brief(head, 8) == head[:8]
    assert brief([*head[:2], *pointed], 8) == [*head[:2], *pointed]


def test_the_first_prompt_quotes_the_code_lines_a_failure_points_at() -> None:
    """HumanEvalFix Rust-47: the panic at `src/lib.rs:18` is the wrong line itself; Go-158's
    build error names a line a small model cannot count to."""
    lib = "fn median(v: Vec<i32>) -> f64 {\n    let n = v.len();\n    *v.get(n - 1 / 2).unwrap() as f64\n}\n"
    report = "- failed: src/lib.rs::tests::m\n    panicked at src/lib.rs:3\n    called from src/tests.rs:6"
    assert where_in_code(report, {"src/lib.rs": lib}) == "\n".join([
        CODE_HEADING,
        "- src/lib.rs:3: `*v.get(n - 1 / 2).unwrap() as f64`",
    ])  # fmt: skip
    assert where_in_code("- failed: t.py::test_m\n    assert 1 == 2", {"m.py": "x = 1\n"}) == ""
