"""The one-function prompt asks for the helper that writes the value a failed check got,
when the function the test runs calls it (HumanEvalFix Rust-137)."""

from __future__ import annotations

from patchwright.agent.relations.helper_suspect import helper_suspect
from patchwright.agent.relations.suspects import Suspect
from patchwright.agent.value_origin import where_written

RUST = """fn compare_one(a: &dyn Any, b: &dyn Any) -> RtnType<String, f64, i32> {
    if to_f64(a) > to_f64(b) { original_type(a) } else { original_type(b) }
}

fn original_type(a: &dyn Any) -> RtnType<String, f64, i32> {
    let mut res = RtnType::Empty();
    if let Some(x) = a.downcast_ref::<i32>() {
        res = RtnType::Int(*x);
    }
    res = RtnType::Float(0.0);
    return res;
}
"""
CALLER = RUST.split("\n\n")[0]
REPORT = "assertion `left == right` failed\n  left: Float(0.0)\n right: Int(2)\n"
TESTS = {"src/tests.rs": "assert_eq!(compare_one(&1, &2), RtnType::Int(2));\n"}

PYTHON = """def answer(ok):
    return word(ok).strip()


def word(ok):
    if ok:
        return 'yes'
    return 'No'
"""


def _suspect(name: str, code: str, path: str) -> Suspect:
    return Suspect(name, code, "t::test", "t", "", "left: Float(0.0)", path=path)


def test_the_helper_that_writes_the_value_got_becomes_the_suspect() -> None:
    origin = where_written(REPORT, {"src/lib.rs": RUST}, TESTS)
    moved = helper_suspect(_suspect("compare_one", CALLER, "src/lib.rs"), origin, RUST)
    assert moved is not None
    assert (moved.name, moved.caller, moved.test_id) == ("original_type", "compare_one", "t::test")
    assert moved.code.startswith("fn original_type(") and "Float(0.0);" in moved.code
    assert "compare_one" not in moved.code


def test_a_python_helper_is_found_by_the_line_too() -> None:
    report = "    assert answer(True) == 'Yes'\nE   AssertionError: assert 'yes' == 'Yes'\n"
    origin = where_written(report, {"answer.py": PYTHON}, {"test_answer.py": "'Yes'"})
    caller = PYTHON.split("\n\n\n")[0]
    moved = helper_suspect(_suspect("answer", caller, "answer.py"), origin, PYTHON)
    assert moved is not None and (moved.name, moved.caller) == ("word", "answer")
    assert moved.code == PYTHON.split("\n\n\n")[1].rstrip("\n")


def test_the_suspect_stays_when_it_writes_the_value_itself_or_calls_no_helper() -> None:
    origin = where_written(REPORT, {"src/lib.rs": RUST}, TESTS)
    helper = RUST.split("\n\n")[1]
    assert helper_suspect(_suspect("original_type", helper, "src/lib.rs"), origin, RUST) is None
    stranger = "fn other() -> i32 {\n    3\n}"
    assert helper_suspect(_suspect("other", stranger, "src/lib.rs"), origin, RUST) is None


def test_the_suspect_stays_when_the_lines_quoted_are_in_two_functions_or_another_file() -> None:
    two = "- src/lib.rs:2: `x`\n- src/lib.rs:10: `y`"
    assert helper_suspect(_suspect("compare_one", CALLER, "src/lib.rs"), two, RUST) is None
    elsewhere = "- src/other.rs:10: `res = RtnType::Float(0.0);`"
    assert helper_suspect(_suspect("compare_one", CALLER, "src/lib.rs"), elsewhere, RUST) is None
    assert helper_suspect(_suspect("compare_one", CALLER, "src/lib.rs"), "", RUST) is None
