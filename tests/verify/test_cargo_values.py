"""A failed Rust ``assert!(a == b)`` says what it compared: the test runs again in a scratch
copy with that line as ``assert_eq!(a, b)``, and the values join the failure. HumanEvalFix
Rust-5's model saw only the expression and guessed four times."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.verify import Baseline
from patchwright.verify.runners.cargo_values import as_assert_eq


def test_an_equality_assertion_becomes_assert_eq() -> None:
    line = "        assert!(intersperse(vec![5, 6], 8) == vec![5, 8, 6]);\n"
    assert as_assert_eq(line) == "        assert_eq!(intersperse(vec![5, 6], 8), vec![5, 8, 6]);\n"
    assert as_assert_eq('assert!(f("a == b", \'(\') == "x");') == (
        'assert_eq!(f("a == b", \'(\'), "x");'
    )
    assert as_assert_eq("assert!(v.iter().all(|x| *x == 1));") is None  # no top-level ==
    assert as_assert_eq('assert!(a == b, "message");') is None
    assert as_assert_eq("assert!(a != b);") is None
    assert as_assert_eq("assert!(a == b && c == d);") is None
    assert as_assert_eq("assert_eq!(a, b);") is None


CARGO = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests;\n"
TESTS = "use super::*;\n\n#[test]\nfn add_works() {\n    assert!(add(2, 3) == 5);\n}\n"


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_the_values_a_failed_assert_compared_join_its_detail(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    files = {"Cargo.toml": CARGO, "src/lib.rs": LIB, "src/tests.rs": TESTS}
    write(files)
    run = baseline().tests
    assert run is not None
    case = run.cases["src/lib.rs::tests::add_works"]
    assert case.message == "assertion failed: add(2, 3) == 5"
    assert "left: -1\nright: 5" in case.detail
    assert {rel: (repo / rel).read_text() for rel in files} == files  # the repository untouched


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_long_values_that_part_say_where(
    write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    lib = ("fn fill(n: u32) -> Vec<u32> {\n    (0..n).collect()\n}\n\n"
           "#[cfg(test)]\nmod tests;\n")  # fmt: skip
    tests = ("use super::*;\n\n#[test]\nfn fills() {\n"
             "    assert_eq!(fill(12), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);\n}\n")  # fmt: skip
    write({"Cargo.toml": CARGO, "src/lib.rs": lib, "src/tests.rs": tests})
    run = baseline().tests
    assert run is not None
    detail = run.cases["src/lib.rs::tests::fills"].detail
    assert "they part after `… 7, 8, 9, 10, 11`: right has `, 12` there, left has not" in detail


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_an_assertion_rustfmt_laid_over_several_lines_says_what_it_compared_too(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    """HumanEvalFix Rust-28: `assert!(` alone on its line, the comparison on the next two."""
    lib = ("fn join(parts: Vec<&str>) -> String {\n    parts.join(\" \")\n}\n\n"
           "#[cfg(test)]\nmod tests;\n")  # fmt: skip
    tests = ("use super::*;\n\n#[test]\nfn joins() {\n    assert!(\n"
             '        join(vec!["x", "y"])\n            == "xy".to_string()\n    );\n'
             "    assert!(join(vec![]) == \"\");\n}\n")  # fmt: skip
    files = {"Cargo.toml": CARGO, "src/lib.rs": lib, "src/tests.rs": tests}
    write(files)
    run = baseline().tests
    assert run is not None
    case = run.cases["src/lib.rs::tests::joins"]
    assert "panicked at src/tests.rs:5" in case.detail
    assert 'left: "x y"\nright: "xy"' in case.detail
    assert {rel: (repo / rel).read_text() for rel in files} == files
