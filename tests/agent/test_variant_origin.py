"""Where the code writes the variant a failed check got (``Float(0.0)``, ``Some(3)``)."""

from __future__ import annotations

from patchwright.agent.value_origin import where_written
from patchwright.agent.variant_origin import where_variant_written

# HumanEvalFix Rust-137, cut down: the helper overwrites what it found
RUST = """/*
  Returns the larger value in its own type; Float(0.0) is never returned.
*/
fn compare_one(a: &dyn Any, b: &dyn Any) -> RtnType<String, f64, i32> {
    if to_f64(a) > to_f64(b) { original_type(a) } else { original_type(b) }
}

fn original_type(a: &dyn Any) -> RtnType<String, f64, i32> {
    let mut res = RtnType::Empty();
    if let Some(x) = a.downcast_ref::<i32>() {
        res = RtnType::Int(*x);
    }
    // res = RtnType::Float(0.0) would lose the type
    res = RtnType::Float(0.0);
    return res;
}
"""
TESTS = {"src/tests.rs": "assert_eq!(compare_one(&1, &2), RtnType::Int(2));\n"}
REPORT = (
    "- failed: src/lib.rs::tests::test_compare_one\n    panicked at src/tests.rs:5\n"
    "    assertion `left == right` failed\n      left: Float(0.0)\n     right: Int(2)\n"
)


def test_a_variant_the_test_got_is_shown_where_the_code_writes_it() -> None:
    assert where_written(REPORT, {"src/lib.rs": RUST}, TESTS) == (
        "The test got `Float(0.0)` where it expected `Int(2)`; the code writes `Float(0.0)` "
        "here:\n- src/lib.rs:14: `res = RtnType::Float(0.0);`"
    )


def test_without_the_tests_either_side_may_be_the_one_got() -> None:
    assert where_variant_written(REPORT, {"src/lib.rs": RUST}) == [
        "The failed check compared `Float(0.0)` with `Int(2)`; the code writes `Float(0.0)` "
        "here:\n- src/lib.rs:14: `res = RtnType::Float(0.0);`"
    ]


def test_the_side_the_tests_write_is_never_the_one_got() -> None:
    swapped = "      left: Int(2)\n     right: Float(0.0)\n"
    code = {"src/lib.rs": "fn f() -> RtnType { RtnType::Int(2) }\n"}
    assert where_variant_written(swapped, code, TESTS) == []


def test_nothing_when_both_variants_are_written_or_the_value_is_not_a_variant() -> None:
    both = {"src/lib.rs": "    Some(3)\n    Some(4)\n"}
    assert where_variant_written("  left: Some(3)\n right: Some(4)\n", both) == []
    numbers = {"src/lib.rs": "    return 3;\n"}
    assert where_variant_written("  left: 3\n right: 4\n", numbers) == []


def test_a_longer_name_or_a_value_written_often_is_not_where_it_is_written() -> None:
    longer = {"src/lib.rs": "    MyFloat(0.0)\n    Float(0.01)\n"}
    often = {"src/lib.rs": "".join(f"    let a{i} = Some(3);\n" for i in range(4))}
    assert where_variant_written(REPORT, longer) == []
    assert where_variant_written("  left: Some(3)\n right: None\n", often) == []


def test_pytest_compares_a_variant_too() -> None:
    code = {"frac.py": "from fractions import Fraction\n\ndef half():\n    return Fraction(1, 3)\n"}
    report = "E       assert Fraction(1, 3) == Fraction(1, 2)\n"
    tests = {"test_frac.py": "def test_half():\n    assert half() == Fraction(1, 2)\n"}
    assert where_written(report, code, tests) == (
        "The test got `Fraction(1, 3)` where it expected `Fraction(1, 2)`; the code writes "
        "`Fraction(1, 3)` here:\n- frac.py:4: `return Fraction(1, 3)`"
    )


def test_a_line_that_writes_through_a_reference_is_code_not_a_comment() -> None:
    code = {
        "src/lib.rs": "/**\n * Some(3) is never returned\n */\nfn f(out: &mut Option<i32>) {\n    *out = Some(3);\n}\n"
    }
    assert where_variant_written("  left: Some(3)\n right: Some(4)\n", code) == [
        "The failed check compared `Some(3)` with `Some(4)`; the code writes `Some(3)` here:\n"
        "- src/lib.rs:5: `*out = Some(3);`"
    ]
