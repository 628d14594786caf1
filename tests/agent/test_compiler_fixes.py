"""The compiler's safe fixes: made where they all fit, never where any is missing."""

from __future__ import annotations

from patchwright.agent.compiler_fixes import fixable, patched
from patchwright.verify import GateResult
from patchwright.verify.model import Problem

TEXT = "fn f(v: &[i32]) -> i32 {\n    let s = vec![];\n    v[0]\n}\n"


def problem(fix: tuple[tuple[int, int, int, int, str], ...], path: str = "src/lib.rs") -> Problem:
    return Problem("types", path, 3, "E0308", "mismatched types", fix=fix)


def test_replacements_are_made_from_the_end_so_columns_stay_true() -> None:
    fixes = [(2, 9, 2, 9, "mut "), (3, 5, 3, 5, "*"), (3, 5, 3, 6, "w")]
    assert patched(TEXT, fixes) == TEXT.replace("let s", "let mut s").replace(
        "    v[0]", "    *w[0]"
    )


def test_overlapping_or_outside_replacements_make_nothing() -> None:
    assert patched(TEXT, [(3, 5, 3, 7, "x"), (3, 6, 3, 8, "y")]) is None
    assert patched(TEXT, [(9, 1, 9, 1, "x")]) is None
    assert patched(TEXT, [(2, 40, 2, 40, "x")]) is None


def test_only_a_failure_whose_every_new_problem_has_a_fix_in_the_change_is_fixable() -> None:
    fixed = problem(((3, 5, 3, 5, "*"),))
    assert fixable([GateResult("types", "failed", new_problems=[fixed])], ["src/lib.rs"]) == [fixed]
    unfixed = problem(())
    both = [GateResult("types", "failed", new_problems=[fixed, unfixed])]
    assert fixable(both, ["src/lib.rs"]) is None
    assert fixable([GateResult("types", "failed", new_problems=[fixed])], ["src/main.rs"]) is None
    assert fixable([GateResult("tests", "failed")], ["src/lib.rs"]) is None
    assert fixable([GateResult("types", "passed")], ["src/lib.rs"]) is None
