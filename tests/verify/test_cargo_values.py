"""A failed Rust ``assert!(a == b)`` says what it compared: the test runs again in a scratch
copy with that line as ``assert_eq!(a, b)``, and the values join the failure. HumanEvalFix
Rust-5's model saw only the expression and guessed four times."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
# it prints first (HumanEvalFix Rust-50): the values come before what it printed
TESTS = (
    "use super::*;\n\n#[test]\n"
    'fn add_works() { for i in 0..5 { println!("step {i}"); }\n    assert!(add(2, 3) == 5);\n}\n'
)
# HumanEvalFix Rust-28: `assert!(` alone on its line, as rustfmt lays out a long one
LAID_OVER = "\n#[test]\nfn adds_over_lines() {\n    assert!(\n        add(1, 1)\n            == 2\n    );\n}\n"
# HumanEvalFix Rust-47: a panic in the code (`unwrap()` on `None`), not in the test
PANICS = (
    "\npub fn third(v: Vec<i32>) -> i32 {\n    *v.get(2).unwrap()\n}\n\n"
    "#[test]\nfn thirds() {\n    assert_eq!(third(vec![1, 2, 3]), 3);\n"
    "    assert_eq!(third(vec![4, 5]), 5);\n}\n"
)


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_the_values_a_failed_assert_compared_join_its_detail(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline], monkeypatch: Any
) -> None:
    """Also for an assertion laid over several lines; and a panic in the code says which
    test lines led there, from the backtrace cargo is asked for (RUST_BACKTRACE unset)."""
    monkeypatch.delenv("RUST_BACKTRACE", raising=False)
    files = {"Cargo.toml": CARGO, "src/lib.rs": LIB, "src/tests.rs": TESTS + LAID_OVER + PANICS}
    write(files)
    run = baseline().tests
    assert run is not None
    case = run.cases["src/lib.rs::tests::add_works"]
    assert case.message == "assertion failed: add(2, 3) == 5"
    assert case.detail.splitlines()[-6:] == [
        "left: -1", "right: 5", "the test printed before it failed (the last 3 of 5 lines):",
        "step 2", "step 3", "step 4",
    ]  # fmt: skip
    over = run.cases["src/lib.rs::tests::adds_over_lines"].detail
    assert "panicked at src/tests.rs:10" in over and "left: 0\nright: 2" in over
    panic = run.cases["src/lib.rs::tests::thirds"].detail
    assert "panicked at src/tests.rs:17" in panic and "called from src/tests.rs:23" in panic
    assert "src/tests.rs:21" not in panic  # the test's closure (its `fn` line): not a caller
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
