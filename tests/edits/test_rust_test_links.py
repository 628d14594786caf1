"""A Rust reply that writes the test module inline keeps the line that links its file."""

from __future__ import annotations

from patchwright.edits import Edit, apply_edits
from patchwright.edits.rust_test_links import keep_test_links, module_files

LIB = """fn unique(nmbs: Vec<i32>) -> Vec<i32> {
    let mut res = nmbs.clone();
    res.sort();
    res
}

#[cfg(test)]
mod tests;
"""

INLINE_TESTS = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_unique() {
        assert!(unique(vec![5, 3, 5]) == vec![3, 5]);
    }
}
"""

FIXED = LIB.replace("    res.sort();\n", "    res.sort();\n    res.dedup();\n")


def whole(path: str, text: str) -> Edit:
    return Edit(path, "whole", "", text, "test")


def test_an_inline_copy_of_the_tests_gives_way_to_the_link() -> None:
    reply = FIXED.split("#[cfg(test)]")[0].rstrip() + "\n" + INLINE_TESTS
    out = apply_edits([whole("src/lib.rs", reply)], {"src/lib.rs": LIB})
    assert out.ok
    assert out.new_texts == {"src/lib.rs": FIXED}
    assert out.notes == [
        "src/lib.rs: kept `mod tests;` — the reply wrote a `mod tests { … }` of its own in its "
        "place; the tests stay in their own file, unchanged"
    ]


def test_a_reply_that_only_inlines_the_tests_changes_nothing() -> None:
    reply = LIB.split("#[cfg(test)]")[0].rstrip() + "\n" + INLINE_TESTS
    out = apply_edits([whole("src/lib.rs", reply)], {"src/lib.rs": LIB})
    assert out.ok and out.new_texts == {}


def test_moving_the_tests_inline_and_deleting_their_file_is_left_alone() -> None:
    reply = LIB.split("#[cfg(test)]")[0].rstrip() + "\n" + INLINE_TESTS
    edits = [whole("src/lib.rs", reply), Edit("src/tests.rs", "delete", "", "", "test")]
    out = apply_edits(edits, {"src/lib.rs": LIB, "src/tests.rs": "use super::*;\n"})
    assert out.ok and out.notes == []
    assert out.new_texts == {"src/lib.rs": reply, "src/tests.rs": None}


def test_a_module_linked_outside_cfg_test_may_be_inlined() -> None:
    old = "mod util;\n\nfn main() {}\n"
    new = "mod util {\n    pub fn f() {}\n}\n\nfn main() {}\n"
    assert keep_test_links("src/main.rs", old, new) == (new, [])


def test_a_module_file_sits_beside_a_crate_root_and_under_a_named_module() -> None:
    assert module_files("src/lib.rs", "tests") == ("src/tests.rs", "src/tests/mod.rs")
    assert module_files("src/geo/shapes.rs", "tests") == (
        "src/geo/shapes/tests.rs",
        "src/geo/shapes/tests/mod.rs",
    )


def test_a_one_function_reply_that_appends_the_tests_changes_the_function_only() -> None:
    function = FIXED.split("\n\n#[cfg(test)]")[0] + "\n"
    reply = Edit("src/lib.rs", "whole", "", function + INLINE_TESTS, "definitions")
    out = apply_edits([reply], {"src/lib.rs": LIB})
    assert out.ok and out.new_texts == {"src/lib.rs": FIXED}
    assert "kept `mod tests;`" in out.notes[0]


def test_a_link_with_its_attribute_on_the_same_line_is_kept_too() -> None:
    old = "fn f() {}\n\n#[cfg(test)] mod tests;\n"
    new = "fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    assert keep_test_links("src/lib.rs", old, new)[0] == old
