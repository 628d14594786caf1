"""Go as first-class as Python: ``go test -json`` per test, ``go vet`` and ``gofmt`` against
the baseline, on real modules in temporary folders, run in the sandbox.

Before: ``go test ./...`` was read from its text (``--- FAIL: TestAdd`` with no message, so
the repair prompt said only the name), a package that did not build had no case at all, and
no Go gate ran beyond tree-sitter's parse: a change calling an undefined function passed the
lint and types gates.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import (
    Baseline,
    LintGate,
    TestsGate,
    TypesGate,
    detect_test_command,
    summarize_failures,
)

pytestmark = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed (scripts/setup.sh installs golang-go)"
)

GO_MOD = "module example.com/calc\n\ngo 1.19\n"
CALC = (
    "package calc\n\n"
    "// Add returns the sum of a and b.\n"
    "func Add(a, b int) int {\n\treturn a - b\n}\n\n"
    "// Mul returns the product of a and b.\n"
    "func Mul(a, b int) int {\n\treturn a * b\n}\n"
)
TESTS = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n"
    '\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("Add(2, 3) = %d, want 5", got)\n\t}\n}\n\n'
    "func TestMul(t *testing.T) {\n"
    "\tfor _, c := range []struct{ a, b, want int }{{2, 3, 6}, {0, 9, 0}} {\n"
    "\t\tif got := Mul(c.a, c.b); got != c.want {\n"
    '\t\t\tt.Fatalf("Mul(%d, %d) = %d, want %d", c.a, c.b, got, c.want)\n\t\t}\n\t}\n}\n'
)
FILES = {"go.mod": GO_MOD, "calc.go": CALC, "calc_test.go": TESTS}


def test_the_failing_test_is_named_with_its_message_a_fix_is_reported_a_break_is_named(
    repo: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:
    write(FILES)
    assert detect_test_command(repo) == "go test ./..."
    base = baseline()
    assert base.tests is not None and base.tests.per_test and base.tests.runner == "go"
    assert base.failing_tests == {"calc_test.go::TestAdd"}
    case = base.tests.cases["calc_test.go::TestAdd"]
    assert case.message == "Add(2, 3) = -1, want 5" and case.path == "calc_test.go"
    assert case.line == 5 and "calc_test.go:7: Add(2, 3) = -1, want 5" in case.detail
    assert base.tests.cases["calc_test.go::TestMul"].outcome == "passed"
    assert "Add(2, 3) = -1, want 5" in base.failure_output

    write({"calc.go": CALC.replace("return a - b", "return a + b")})
    fixed = check(base, ["calc.go"], gates=[TestsGate()])["tests"]
    assert fixed.status == "passed"
    assert [p.message for p in fixed.fixed_problems] == ["calc_test.go::TestAdd"]

    write({"calc.go": CALC.replace("return a * b", "return a * b + 1")})
    broke = check(base, ["calc.go"], gates=[TestsGate()])["tests"]
    assert broke.status == "failed"
    assert [p.message for p in broke.new_problems] == ["calc_test.go::TestMul"]
    summary = summarize_failures([broke])
    assert "calc_test.go::TestMul" in summary and "Mul(2, 3) = 7, want 6" in summary
    assert "TestAdd" not in summary  # failing before, not new


def test_a_package_that_stops_building_is_a_new_failure_and_go_vet_refuses_it(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({**FILES, "calc.go": CALC.replace("return a - b", "return a + b")})
    base = baseline()
    assert base.tests is not None and base.failing_tests == frozenset()
    write({"calc.go": CALC.replace("return a - b", "return a + sub(b)")})
    tests = check(base, ["calc.go"], gates=[TestsGate()])["tests"]
    assert tests.status == "failed"
    (problem,) = tests.new_problems
    assert problem.message == ".::[build]" and problem.code == "error"
    assert "undefined: sub" in problem.detail
    types = check(base, ["calc.go"], gates=[TypesGate()])["types"]
    assert types.status == "failed", types
    (vetted,) = types.new_problems
    assert vetted.path == "calc.go" and vetted.line == 5 and "sub" in vetted.message
    assert vetted.code == "compile"


def test_a_call_with_the_wrong_arguments_says_what_was_passed_and_what_is_wanted(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """Polyglot Go octal: the stub took three arguments where the tests pass one; told only
    "not enough arguments in call to ParseOctal", four repairs kept all three."""
    stub = "package calc\n\nfunc Add(a, b, c int) int {\n\treturn a + b\n}\n"
    write({**FILES, "calc.go": stub})
    base = baseline()
    (build,) = base.failing_tests
    case = base.tests.cases[build] if base.tests else None
    assert case is not None and "have (number, number); want (int, int, int)" in (
        case.message + case.detail
    )
    write({"calc.go": CALC.replace("return a - b", "return a + b"), "calc_test.go": TESTS})
    fixed = baseline()
    write({"calc.go": stub})
    (vetted,) = check(fixed, ["calc.go"], gates=[TypesGate()])["types"].new_problems
    assert "want (int, int, int)" in vetted.message


def test_a_syntax_error_is_explained_by_the_go_compiler_too(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({**FILES, "calc.go": CALC.replace("return a - b", "return a + b")})
    base = baseline()
    write({"calc.go": CALC.replace("return a * b", "return a * b)")})
    results = check(base, ["calc.go"])
    assert results["syntax"].status == "failed" and results["tests"].status == "skipped"
    assert results["types"].status == "failed", results["types"]  # run, to explain it
    assert all(p.path == "calc.go" for p in results["types"].new_problems)
    summary = summarize_failures(list(results.values()))
    assert "the compiler's account of them is below" in summary and "calc.go:10" in summary


def test_go_vet_blocks_only_new_findings(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    old_finding = 'package calc\n\nimport "fmt"\n\nfunc Show() { fmt.Printf("%d\\n", "x") }\n'
    write({**FILES, "show.go": old_finding})
    base = baseline()
    write({"calc.go": CALC.replace("return a * b", "return b * a")})
    same = check(base, ["calc.go"], gates=[TypesGate()])["types"]
    assert same.status == "passed", same  # show.go's finding was there before
    new_finding = CALC + '\nfunc Log(n int) string { return fmt.Sprintf("%s", n) }\n'
    write({"calc.go": new_finding.replace("package calc\n", 'package calc\n\nimport "fmt"\n')})
    worse = check(base, ["calc.go"], gates=[TypesGate()])["types"]
    assert worse.status == "failed"
    assert [(p.path, p.code) for p in worse.new_problems] == [("calc.go", "vet")]
    assert "Sprintf format %s has arg n of wrong type int" in worse.new_problems[0].message


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_gofmt_blocks_a_file_it_would_reformat_unless_it_already_would(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({**FILES, "messy.go": "package calc\nfunc  Messy( ) int { return 1 }\n"})
    base = baseline()
    write({"messy.go": "package calc\nfunc  Messy( ) int { return 2 }\n"})
    assert check(base, ["messy.go"], gates=[LintGate()])["lint"].status == "passed"
    write({"calc.go": CALC.replace("\treturn a - b", "    return a+b")})
    lint = check(base, ["calc.go"], gates=[LintGate()])["lint"]
    assert lint.status == "failed"
    (problem,) = lint.new_problems
    assert problem.code == "gofmt" and problem.path == "calc.go"
    assert "-    return a+b" in problem.detail and "+\treturn a + b" in problem.detail


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_a_file_gofmt_could_not_read_before_is_not_refused_for_its_layout(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """HumanEvalFix Go-140: `'__'` stopped gofmt, so the file's four-space layout was never
    checked; the change that fixed the literal kept that layout and was refused for it."""
    broken = "package calc\n\nfunc Under() rune {\n    return '__'\n}\n"
    write({**FILES, "under.go": broken})
    base = baseline()
    write({"under.go": broken.replace("'__'", "'_'")})
    assert check(base, ["under.go"], gates=[LintGate()])["lint"].status == "passed"
    write({"under.go": broken.replace("'__'", "'_' +")})  # still unreadable: a new problem
    lint = check(base, ["under.go"], gates=[LintGate()])["lint"]
    assert lint.status == "failed" and lint.new_problems[0].line == 5


@pytest.mark.skipif(
    not Path("/usr/share/gocode/src/github.com/stretchr/testify").is_dir(),
    reason="testify from Debian is not installed (golang-github-stretchr-testify-dev)",
)
def test_gopath_mode_with_testify_names_each_test_and_its_assertion(
    write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    """The HumanEvalFix Go layout: no go.mod, ``GO111MODULE=off GOPATH=/usr/share/gocode``."""
    write({
        "main.go": "package main\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n\nfunc main() {}\n",
        "main_test.go": (
            'package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n\n'
            "func TestAdd(t *testing.T) {\n\tassert.Equal(t, 5, Add(2, 3))\n}\n"
        ),
    })  # fmt: skip
    cmd = "GO111MODULE=off GOPATH=/usr/share/gocode go test ./..."
    base = baseline(test_cmd=cmd)
    assert base.tests is not None and base.failing_tests == {"main_test.go::TestAdd"}, base.tests
    case = base.tests.cases["main_test.go::TestAdd"]
    assert case.message == "Not equal: expected: 5 actual : -1"
    assert case.detail == "main_test.go:10: Not equal: expected: 5 actual  : -1"  # one line


def test_a_test_failing_many_checks_shows_its_first_ones_in_order(
    write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    # HumanEvalFix Go-114's repair showed the message of line 9 and then "..." and lines
    # 14-21: the tail of the list, not the test's first and simplest examples
    checks = "".join(f"\tassert.Equal(t, {n}, Add({n}, 0))\n" for n in range(1, 14))
    write({
        "main.go": "package main\n\nfunc Add(a, b int) int {\n\treturn -1\n}\n\nfunc main() {}\n",
        "main_test.go": (
            'package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n\n'
            f"func TestAdd(t *testing.T) {{\n{checks}}}\n"
        ),
    })  # fmt: skip
    base = baseline(test_cmd="GO111MODULE=off GOPATH=/usr/share/gocode go test ./...")
    lines = base.failure_output.splitlines()
    shown = [line.strip() for line in lines if line.strip().startswith("main_test.go:")]
    assert shown == [f"main_test.go:{10 + n}: Not equal: expected: {n + 1} actual  : -1"
                     for n in range(8)]  # fmt: skip
    assert "... and 5 more like these" in base.failure_output
    assert "Not equal: expected: 1 actual : -1" not in [line.strip() for line in lines]


def test_two_long_values_that_differ_by_a_word_say_where_they_part(
    write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    write({
        "main.go": (
            'package main\n\nimport "fmt"\n\nfunc Say(n int) string {\n'
            '\treturn fmt.Sprintf("the number %d of %d the input", n, n)\n}\n\nfunc main() {}\n'
        ),
        "main_test.go": (
            'package main\n\nimport (\n\t"testing"\n\n\t"github.com/stretchr/testify/assert"\n)\n\n'
            'func TestSay(t *testing.T) {\n\tassert.Equal(t, "the number 4 of the input", Say(4))\n}\n'
        ),
    })  # fmt: skip
    base = baseline(test_cmd="GO111MODULE=off GOPATH=/usr/share/gocode go test ./...")
    assert base.tests is not None
    detail = base.tests.cases["main_test.go::TestSay"].detail
    assert detail.endswith(
        "they part after `…the number 4 of `: actual has `4 ` there, expected has not"
    )
