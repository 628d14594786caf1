"""What the proposal prompt shows of a target's findings: each with the code around it, each
failing test with its code, what it said and the target's code it runs — the remaining
findings only — and the edit format chosen by what the proposal is about."""

from __future__ import annotations

import pytest

from patchwright.modes.review.findings import Finding
from patchwright.modes.review.focus import code_around, describe_failing, focus, shown_findings
from patchwright.modes.review.formats import edit_format, finding_kind, parse_overrides
from patchwright.verify import TestRun
from patchwright.verify.testmodel import TestCase

CODE = '''"""Reports."""


def count_units(items: list[int]) -> int:
    """How many units are in stock."""
    return str(sum(items))


def long_one(x: int) -> int:
    a = x
    b = a + 1
    c = b + 1
    d = c + 1
    e = d + 1
    f = e + 1
    g = f + 1
    h = g + 1
    i = h + 1
    j = i + 1
    k = j + 1
    m = k + 1
    n = m + 1
    return n == None


def average(items: list[int]) -> float:
    return sum(items) + len(items)
'''
TEST = """from shop.report import average


def test_average() -> None:
    items = [1, 2, 3]
    assert average(items) == 2.0
"""
TYPE_ERROR = Finding("shop/report.py", 6, "types", "return-value",
                     'Incompatible return value type (got "str", expected "int")')  # fmt: skip
LINT = Finding("shop/report.py", 23, "lint", "E711", "Comparison to `None`")
LAZY = Finding("shop/report.py", 1, "lazy", "todo", "TODO tidy up")
FAILING = Finding("shop/report.py", None, "tests", "failed", "test_average fails",
                  "tests/test_report.py::test_average")  # fmt: skip


def test_a_short_function_is_shown_whole_around_its_finding_the_line_marked() -> None:
    assert code_around(CODE, 6) == [
        "  4 | def count_units(items: list[int]) -> int:",
        '  5 |     """How many units are in stock."""',
        "> 6 |     return str(sum(items))",
    ]


def test_a_long_function_shows_its_def_line_and_a_few_lines_around_the_finding() -> None:
    shown = code_around(CODE, 23)
    assert shown[0].endswith("def long_one(x: int) -> int:") and shown[1].strip() == "..."
    assert shown[-2].startswith("> 23 |") and shown[-2].endswith("return n == None")
    assert len(shown) == 6


def test_only_the_remaining_findings_most_serious_first_lazy_only_when_nothing_worse() -> None:
    shown = shown_findings([LAZY, LINT, FAILING, TYPE_ERROR], CODE)

    assert [s.splitlines()[0] for s in shown] == [TYPE_ERROR.render(), LINT.render()]
    assert "> 6 |     return str(sum(items))" in shown[0]
    assert shown_findings([LAZY], CODE) == [LAZY.render()]
    assert shown_findings([TYPE_ERROR], CODE, code=False) == [TYPE_ERROR.render()]


def test_a_failing_test_comes_with_its_code_what_it_said_and_the_code_it_runs() -> None:
    detail = "tests/test_report.py:6: AssertionError\nE       AssertionError: assert 9 == 2.0"
    case = TestCase("tests/test_report.py::test_average", "failed", "tests/test_report.py",
                    message="AssertionError: assert 9 == 2.0", detail=detail)  # fmt: skip
    run = TestRun("pytest", 1, "", {case.id: case}, per_test=True)
    texts = {"shop/report.py": CODE, "tests/test_report.py": TEST}

    text = describe_failing(run, [case.id], "shop/report.py", texts)

    assert "- failed: tests/test_report.py::test_average" in text
    assert "> 6 |     assert average(items) == 2.0" in text  # the failing line, marked
    assert text.count("assert 9 == 2.0") == 1  # said once, not once per form
    runs = text.split("The code in shop/report.py it runs:")[1]
    assert "def average(items: list[int]) -> float:" in runs and "count_units" not in runs
    ctx = focus(run, [FAILING, TYPE_ERROR], "shop/report.py", texts)
    assert (ctx.about, ctx.failures) == ("tests", text)
    # the functions at fault, for a one-function proposal: the test's first, then the types'
    assert [s.name for s in ctx.suspects] == ["average", "count_units"]
    assert "The test" not in ctx.failures_brief and "assert 9 == 2.0" in ctx.failures_brief


def test_the_edit_format_by_what_the_proposal_is_about() -> None:
    assert finding_kind("bug", [LAZY, LINT, TYPE_ERROR]) == "types"
    assert finding_kind("bug", [LAZY]) == "clean"
    assert finding_kind("cascade", [TYPE_ERROR]) == "cascade"
    small = {"small": True, "lines": 40, "overrides": {}}
    assert edit_format("auto", "tests", **small) == "whole"  # type: ignore[arg-type]
    assert edit_format("auto", "tests", **small, suspect=True) == "function"  # type: ignore[arg-type]
    assert edit_format("auto", "types", **small, suspect=True) == "function"  # type: ignore[arg-type]
    assert edit_format("auto", "clean", **small, suspect=True) == "whole"  # type: ignore[arg-type]
    assert edit_format("auto", "tests", small=False, lines=40, overrides={}, suspect=True) == "diff"
    asked = parse_overrides(["tests=function"])
    assert (
        edit_format("auto", "tests", small=False, lines=40, overrides=asked, suspect=True)
        == "function"
    )
    assert edit_format("auto", "tests", small=False, lines=40, overrides=asked) == "diff"
    assert edit_format("auto", "tests", small=True, lines=900, overrides={}) == "diff"
    assert edit_format("auto", "tests", small=False, lines=40, overrides={}) == "diff"
    flipped = parse_overrides(["tests=diff", "types=whole"])
    assert edit_format("auto", "tests", small=True, lines=40, overrides=flipped) == "diff"
    assert edit_format("auto", "types", small=False, lines=40, overrides=flipped) == "whole"
    assert edit_format("diff", "types", small=True, lines=40, overrides=flipped) == "diff"
    with pytest.raises(ValueError, match="the kind is one of"):
        parse_overrides(["typos=diff"])
    with pytest.raises(ValueError, match="the format is one of"):
        parse_overrides(["tests=patch"])
