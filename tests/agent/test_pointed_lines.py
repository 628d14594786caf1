"""A repair quotes the lines of the rejected change that its errors point at."""

from __future__ import annotations

from patchwright.agent.pointed_lines import HEADING, pointed_lines, where

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
