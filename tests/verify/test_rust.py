"""Rust as first-class as Python: ``cargo test`` per test — unit, integration and doc tests,
by the file they live in — and ``cargo check`` against the baseline, on real crates in
temporary folders, run in the sandbox.

Before: cargo could not even start in the bubblewrap sandbox under rustup; and when it ran,
cargo stopped at the first test target that failed (the integration and doc tests reported
nothing), tests were named without their file, with no assertion message, and a change that
did not compile passed the lint and types gates.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import (
    Baseline,
    Problem,
    TestsGate,
    TypesGate,
    detect_test_command,
    run_gates,
    summarize_failures,
)

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")

CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = (
    "/// Adds two numbers.\n"
    "///\n"
    "/// ```\n"
    "/// assert_eq!(calc::add(2, 3), 5);\n"
    "/// ```\n"
    "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n"
    "pub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n"
    "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds_two_numbers() {\n"
    '        assert_eq!(add(2, 3), 5, "add is wrong");\n    }\n\n'
    "    #[test]\n    fn multiplies() {\n        assert_eq!(mul(2, 3), 6);\n    }\n}\n"
)
IT = "#[test]\nfn mul_by_zero() {\n    assert_eq!(calc::mul(7, 0), 0);\n}\n"
FILES = {"Cargo.toml": CARGO, "src/lib.rs": LIB, "tests/it.rs": IT}
ADD = "src/lib.rs::tests::adds_two_numbers"
DOC = "src/lib.rs::add (doc test)"


@pytest.fixture
def new_problem(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> Callable[[str, str], Problem]:
    """The one problem `cargo check` finds new when a crate's `src/lib.rs` goes from ``before``
    to ``after``."""

    def introduce(before: str, after: str) -> Problem:
        write({"Cargo.toml": CARGO, "src/lib.rs": before})
        base = baseline()
        write({"src/lib.rs": after})
        (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
        return problem  # type: ignore[no-any-return]

    return introduce


def test_every_kind_of_test_is_named_by_its_file_and_fails_with_its_assertion(
    repo: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:
    write(FILES)
    assert detect_test_command(repo) == "cargo test"
    base = baseline()
    run = base.tests
    assert run is not None and run.per_test and run.runner == "cargo", run and run.output
    assert base.failing_tests == {ADD, DOC}
    assert {i for i, c in run.cases.items() if c.outcome == "passed"} == {
        "src/lib.rs::tests::multiplies",
        "tests/it.rs::mul_by_zero",
    }
    unit = run.cases[ADD]
    assert unit.message == "assertion `left == right` failed: add is wrong"
    assert "panicked at src/lib.rs:20" in unit.detail and "left: -1" in unit.detail
    assert unit.path == "src/lib.rs" and unit.line == 19
    doc = run.cases[DOC]
    assert doc.line == 3 and "left: -1" in doc.detail
    # unit and doc tests live in the code's own file; an integration test in its own
    assert unit.inline and doc.inline and not run.cases["tests/it.rs::mul_by_zero"].inline
    assert "add is wrong" in base.failure_output

    write({"src/lib.rs": LIB.replace("    a - b", "    a + b")})
    fixed = check(base, ["src/lib.rs"], gates=[TestsGate()])["tests"]
    assert fixed.status == "passed"
    assert sorted(p.message for p in fixed.fixed_problems) == [DOC, ADD]

    write({"src/lib.rs": LIB.replace("    a * b", "    a * b + 1")})
    broke = check(base, ["src/lib.rs"], gates=[TestsGate()])["tests"]
    assert broke.status == "failed"
    assert [p.message for p in broke.new_problems] == [
        "src/lib.rs::tests::multiplies",
        "tests/it.rs::mul_by_zero",
    ]
    summary = summarize_failures([broke])
    assert "tests/it.rs::mul_by_zero" in summary and "left: 1" in summary


def test_a_change_that_does_not_compile_is_refused_by_cargo_check(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({**FILES, "src/lib.rs": LIB.replace("    a - b", "    a + b")})
    base = baseline()
    assert base.failing_tests == frozenset()
    write({"src/lib.rs": LIB.replace("    a - b", '    a + "b"')})
    results = check(base, ["src/lib.rs"])
    assert results["types"].status == "failed", results["types"]
    (problem,) = results["types"].new_problems
    assert problem.path == "src/lib.rs" and problem.line == 7 and problem.code == "E0277"
    assert "cannot add `&str` to `i32`" in problem.message
    assert results["tests"].status == "skipped"  # not run after a failed gate
    tests = check(base, ["src/lib.rs"], gates=[TestsGate()])["tests"]
    assert tests.status == "failed" and tests.new_problems[0].message == ".::[build]"
    assert "E0277" in tests.new_problems[0].detail


def test_the_compilers_suggested_fix_reaches_the_repair_report(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """HumanEvalFix Rust-2: told only "cannot find function `trunc`", the model guessed again;
    rustc's help says how, and shows the line as its suggestion makes it."""
    frac = "pub fn frac(x: f32) -> f32 {\n    x - x.trunc()\n}\n"
    write({"Cargo.toml": CARGO, "src/lib.rs": frac})
    base = baseline()
    write({"src/lib.rs": frac.replace("x.trunc()", "trunc(x)")})
    results = check(base, ["src/lib.rs"])
    (problem,) = results["types"].new_problems
    assert problem.code == "E0425"
    assert problem.hint.startswith("help: use the `.` operator to call the method `trunc`")
    assert problem.hint.endswith(": `x - x.trunc()`")
    assert f"- {problem.render()}\n    {problem.hint}" in summarize_failures(list(results.values()))


def test_a_fix_rustc_calls_machine_applicable_is_carried_and_no_other(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """What ``cargo fix`` would apply unseen travels with the problem (the agent applies it);
    a suggestion rustc only thinks may be right (a method for a function) stays a hint."""
    top = "pub fn top(v: &[i32]) -> i32 {\n    *v.iter().max().unwrap()\n}\n"
    write({"Cargo.toml": CARGO, "src/lib.rs": top})
    base = baseline()
    write({"src/lib.rs": top.replace("    *v", "    v")})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert (problem.code, problem.fix) == ("E0308", ((2, 5, 2, 5, "*"),))
    assert "fix" not in problem.to_dict()
    write({"src/lib.rs": top.replace("*v.iter().max().unwrap()", "max(v)")})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert (problem.code, problem.fix) == ("E0425", ())


def test_a_suggestion_that_changes_what_the_code_computes_is_neither_applied_nor_told(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-87: rustc calls `vec![i as i32; j]` for `vec![i as i32, j]` (j a
    usize) machine-applicable; it is a vector of j copies of i, not the pair."""
    pair = "pub fn pair(i: usize, j: usize) -> Vec<i32> {\n    vec![i as i32, j as i32]\n}\n"
    problem = new_problem(pair, pair.replace("j as i32]", "j]"))
    assert problem.code == "E0308" and problem.fix == ()
    assert "semicolon" not in problem.hint


def test_a_help_whose_suggestion_spans_lines_is_told_without_a_mangled_line(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-63: "consider returning a value here: `}` and `/* `i32` value */`
    on the next line" reached the repair as one broken line."""
    count = "pub fn count(n: i32) -> i32 {\n    let mut c = 0;\n    for _ in 0..n {\n        c += 1;\n    }\n    c\n}\n"
    problem = new_problem(count, count.replace("    c\n}", "}"))
    assert problem.hint == "help: consider returning a value here"


def test_rustcs_similar_name_for_a_one_letter_name_is_not_told(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """HumanEvalFix Rust-45: `b` gone from the parameters, rustc offered `a + a` for
    `a + b` — any one-letter name is "similar" to another; a longer one stays told."""
    area = "pub fn area(a: i32, b: i32) -> i32 {\n    a * b\n}\n"
    write({"Cargo.toml": CARGO, "src/lib.rs": area})
    base = baseline()
    write({"src/lib.rs": area.replace("b: i32", "h: i32")})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert problem.code == "E0425" and "similar name" not in problem.hint
    write({"src/lib.rs": "pub fn area(width: i32, b: i32) -> i32 {\n    widht * b\n}\n"})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert problem.hint.startswith("help: a local variable with a similar name exists")


def test_a_sum_of_the_wrong_item_type_is_told_where_the_chain_changed_it(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-94: told only "the trait `Sum<u32>` is not implemented for `i32`",
    two repairs in a row sent the same `.map(|c| c.to_digit(10).unwrap()).sum()`; rustc's
    note says which call of the chain made the items `u32`."""
    digits = "pub fn digits(n: i32) -> i32 {\n    n.to_string().chars().map(|c| c.to_digit(10).unwrap() as i32).sum()\n}\n"
    problem = new_problem(digits, digits.replace(" as i32)", ")"))
    assert problem.code == "E0277"
    assert problem.hint == (
        "help: the trait `std::iter::Sum<u32>` is not implemented for `i32`; "
        "`Iterator::Item` changed to `u32` here: `map(|c| c.to_digit(10).unwrap())`"
    )


def test_a_method_of_a_similar_name_but_other_parameters_is_not_told(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-65: `len` and `iter` called on a `Chars`, the repair was told
    "there is a method `le` with a similar name" and "`filter`" — twice, and sent them back."""
    shift = "pub fn shift(x: i32) -> usize {\n    let digits: Vec<char> = x.to_string().chars().collect();\n    digits.len()\n}\n"
    problem = new_problem(shift, shift.replace(": Vec<char>", "").replace(".collect()", ""))
    assert problem.code == "E0599" and "`len`" in problem.message
    assert "similar name" not in problem.hint


def test_an_import_rustc_suggests_is_told_before_a_similarly_spelt_name(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-114: `min(a, b)` without its import was told "a function with a
    similar name exists: `main(a, b)`" — rustc's next help, `use std::cmp::min;`, went
    untold, and the repair called `min` again."""
    least = "fn main() {}\n\npub fn least(a: i64, b: i64) -> i64 {\n    std::cmp::min(a, b)\n}\n"
    problem = new_problem(least, least.replace("std::cmp::min", "min"))
    assert problem.code == "E0425"
    assert problem.hint.startswith("help: consider importing")
    assert "`use std::cmp::min;`" in problem.hint and "main" not in problem.hint


def test_an_import_rustc_suggests_is_also_told_as_a_path_the_standard_library_first(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-114 again: told `use crate::cmp::min;` or `use std::cmp::min;`, a
    repair that sends only the function back has no place for a `use` line, and called `min`
    again; the path works inside the function."""
    least = "use std::cmp::{self, max};\n\npub fn least(a: i64, b: i64) -> i64 {\n    cmp::min(a, max(a, b))\n}\n"
    problem = new_problem(least, least.replace("cmp::min", "min"))
    assert problem.code == "E0425"
    assert problem.hint.index("`use std::cmp::min;`") < problem.hint.index("`use crate::cmp::min;`")
    assert problem.hint.endswith("; or write its path where it is used: `std::cmp::min`")


def test_a_missing_name_from_a_module_the_file_already_imports_from_is_imported(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-163: `use std::{cmp::{max, self}}` and a repair that called `min`,
    three times, told the import and the path, while it could send only the function back.
    The standard library's candidate is the fix; a module the file does not use stays a hint
    (``max(v)`` above)."""
    least = "fn main() {}\n\nuse std::{cmp::{max, self}};\n\npub fn least(a: i64, b: i64) -> i64 {\n    cmp::min(a, max(a, b))\n}\n"
    problem = new_problem(least, least.replace("cmp::min", "min"))
    assert problem.code == "E0425"
    ((_, _, _, _, text),) = problem.fix
    assert text.strip() == "use std::cmp::min;"
    other = "use std::collections::HashMap;\n\npub fn n(m: &HashMap<i32, i32>) -> usize {\n    m.len()\n}\n"
    problem = new_problem(
        other, other.replace("m.len()", "m.len() + std::mem::size_of::<i32>() + swap(1)")
    )
    assert problem.code == "E0425" and problem.fix == ()


def test_a_label_that_names_what_the_message_does_not_is_told(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """HumanEvalFix Rust-130: told "the type `[{integer}]` cannot be indexed by `i32`" and a
    help that restates it, two repairs in a row indexed with the `i32` again; rustc's label
    says what an index must be."""
    tri = "pub fn tri(n: i32) -> Vec<i32> {\n    let mut s = vec![1, 3, 2];\n    for i in 3..=n as usize {\n        s.push(s[i - 1]);\n    }\n    s\n}\n"
    problem = new_problem(tri, tri.replace(" as usize", ""))
    assert problem.code == "E0277"
    assert problem.message.endswith(": slice indices are of type `usize` or ranges of `usize`")


def test_a_label_that_names_nothing_new_is_not_told(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """rustc's "cannot find value `b` in this scope" is labelled "not found in this scope";
    the label would only repeat the message."""
    add = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    problem = new_problem(add, add.replace("a + b", "a + c"))
    assert problem.code == "E0425"
    assert problem.message == "cannot find value `c` in this scope"


def test_a_terse_compiler_message_carries_what_its_label_says(
    new_problem: Callable[[str, str], Problem],
) -> None:
    """Polyglot Rust grade-school: told only "[E0308] mismatched types", three repairs in a
    row guessed at the types; rustc's label says which types."""
    names = "pub fn has(names: &[String], name: &str) -> bool {\n    names.contains(&name.to_string())\n}\n"
    problem = new_problem(names, names.replace("&name.to_string()", "name"))
    assert problem.code == "E0308"
    assert problem.message == "mismatched types: expected `&String`, found `&str`"


def test_a_field_error_is_told_where_its_struct_is_declared_and_what_it_has(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """rustc's E0560 and E0609 come with no help: the exercise's stub ``pub struct Counter;``
    had no field, and the repair was told only "has no field named `count`"."""
    stub = "pub struct Counter;\n\npub fn zero() -> u32 {\n    0\n}\n"
    write({"Cargo.toml": CARGO, "src/lib.rs": stub})
    base = baseline()
    uses = "impl Counter {\n    pub fn new() -> Self {\n        Counter { count: 0 }\n    }\n}\n"
    write({"src/lib.rs": stub + uses})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert problem.code == "E0560"
    assert problem.hint == (
        "help: `Counter` is declared at src/lib.rs:1 with no named fields: `pub struct Counter;`"
    )
    fields = "pub struct Counter {\n    pub total: u32,\n    seen: Vec<u8>,\n}\n"
    write({"src/lib.rs": fields + "\npub fn get(c: &Counter) -> u32 {\n    c.count\n}\n"})
    (problem,) = check(base, ["src/lib.rs"])["types"].new_problems
    assert problem.code == "E0609"
    assert problem.hint == (
        "help: `Counter` is declared at src/lib.rs:1 with the fields `total`, `seen`"
    )


def test_a_syntax_error_is_explained_by_the_compiler_not_only_placed_by_tree_sitter(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    """Polyglot Rust scale-generator: told `syntax error near "b'"` twice, the model kept its
    multi-character byte literals; rustc names the mistake and the fix."""
    first = "pub fn first(s: &str) -> bool {\n    s.as_bytes()[0] == b'A'\n}\n"
    write({"Cargo.toml": CARGO, "src/lib.rs": first})
    base = baseline()
    write({"src/lib.rs": first.replace("b'A'", "b'Ab'")})
    results = check(base, ["src/lib.rs"])
    assert results["syntax"].status == "failed"
    assert results["lint"].status == "skipped" and results["tests"].status == "skipped"
    assert results["types"].status == "failed", results["types"]  # run, to explain it
    (problem,) = results["types"].new_problems
    assert (
        problem.line == 2 and "character literal may only contain one codepoint" in problem.message
    )
    summary = summarize_failures(list(results.values()))
    assert (
        "syntax gate failed with" in summary
        and "the compiler's account of them is below" in summary
    )
    assert "syntax error near" not in summary and 'b"Ab"' in summary  # rustc's suggestion


def test_old_errors_do_not_block_and_only_new_ones_do(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    """An error that was already there (in a file the change does not touch) is old: the
    check of the tree as it was, in a scratch copy, has it too."""
    broken = 'pub fn broken() -> i32 {\n    "no"\n}\n'
    write({**FILES, "src/lib.rs": "pub mod extra;\n" + LIB, "src/extra.rs": broken})
    base = baseline()
    write({"src/lib.rs": "pub mod extra;\n" + LIB.replace("    a * b", "    b * a")})
    from patchwright.sandbox import Sandbox

    box = Sandbox(repo)
    try:
        same = run_gates(repo, box, base, touched=["src/lib.rs"], gates=[TypesGate()])[0]
        assert same.status == "passed", same
        write({"src/lib.rs": "pub mod extra;\n" + LIB.replace("    a * b", "    a * true")})
        worse = run_gates(repo, box, base, touched=["src/lib.rs"], gates=[TypesGate()])[0]
    finally:
        box.close()
    assert worse.status == "failed"
    assert [(p.path, p.code) for p in worse.new_problems] == [("src/lib.rs", "E0277")]


def test_a_change_that_overflows_the_stack_fails_the_test_it_was_running(
    repo: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:
    """The test process aborts (SIGABRT) before libtest prints the test's result: the gate
    still names the test and says why, instead of a bare exit code and a backtrace."""
    write(FILES)
    base = baseline()
    endless = "pub fn mul(a: i32, b: i32) -> i32 {\n    mul(a, b) + a * b\n}"
    write({"src/lib.rs": LIB.replace("pub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}", endless)})
    broke = check(base, ["src/lib.rs"], gates=[TestsGate()])["tests"]
    assert broke.status == "failed"
    problems = {p.message: p for p in broke.new_problems}
    assert "src/lib.rs::tests::multiplies" in problems, summarize_failures([broke])
    assert "has overflowed its stack" in summarize_failures([broke])


def test_a_unit_test_is_placed_in_the_module_file_that_declares_it(tmp_path: Path) -> None:
    """HumanEvalFix's layout: ``#[cfg(test)] mod tests;`` in lib.rs, the tests in tests.rs."""
    from patchwright.verify.runners.cargotest import _module_file

    for rel in ("src/lib.rs", "src/tests.rs", "src/parser/mod.rs", "src/parser/cases.rs"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert _module_file(tmp_path, "src/lib.rs", "tests::adds") == ("src/tests.rs", False)
    assert _module_file(tmp_path, "src/lib.rs", "parser::cases::t") == (
        "src/parser/cases.rs",
        False,
    )
    assert _module_file(tmp_path, "src/lib.rs", "parser::tests::t") == ("src/parser/mod.rs", True)
    assert _module_file(tmp_path, "src/lib.rs", "top") == ("src/lib.rs", True)
    assert _module_file(tmp_path, "tests/it.rs", "works") == ("tests/it.rs", False)


def test_a_wrapped_cargo_test_still_reports_each_test(tmp_path: Path) -> None:
    """HumanEvalFix's command: ``timeout 120 cargo test --offline``."""
    from patchwright.verify.runners import plan_for

    plan = plan_for(tmp_path, "timeout 120 cargo test --offline", tmp_path)
    assert plan.runner == "cargo"
    assert plan.command == (
        "timeout 120 cargo test --no-fail-fast --message-format=json-render-diagnostics "
        "--offline 2>&1"
    )


def test_a_struct_declared_on_one_line_or_twice(tmp_path: Path) -> None:
    from patchwright.verify.langs.rust_decls import field_hint

    (tmp_path / "src").mkdir()
    (tmp_path / "src/lib.rs").write_text("pub struct P { x: i32, pub y: Vec<i32> }\n")
    assert field_hint("no field `z` on type `&mut P`", tmp_path, tmp_path) == (
        "help: `P` is declared at src/lib.rs:1 with the fields `x`, `y`"
    )
    (tmp_path / "src/other.rs").write_text("struct P(u8);\n")
    assert field_hint("no field `z` on type `P`", tmp_path, tmp_path) == ""  # which one?
