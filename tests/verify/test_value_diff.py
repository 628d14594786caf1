"""Where two long values part, said in one line beside a testify or Rust failure (a 1.5B
model read HumanEvalFix Go-113's two sentences four times and never saw the stray ``4``)."""

from __future__ import annotations

from patchwright.verify.runners.value_diff import (
    sides_line,
    string_end,
    where_they_part,
    with_parting,
)

SAID = '[]string{"the number of odd elements 4n the str4ng 4 of the 4nput."}'
GOT = '[]string{"the number of odd elements 4n the str4ng 4 of 4 the 4nput."}'


def test_a_stray_piece_is_named_with_what_comes_before_it() -> None:
    assert where_they_part(SAID, GOT) == (
        "they part after `…the str4ng 4 of `: actual has `4 ` there, expected has not"
    )


def test_a_missing_piece_and_a_changed_one_are_named_too() -> None:
    assert where_they_part("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", "[1, 2, 3, 4, 5, 6, 7, 8, 9]") == (
        "they part after `…4, 5, 6, 7, 8, 9`: expected has `, 10` there, actual has not"
    )
    assert where_they_part('"Hello World, this is it"', '"Hello Wxrld, this is it"') == (
        'they part after `"Hello W`: expected `o`, actual `x`'
    )


def test_a_number_is_never_cut_where_they_part() -> None:
    """HumanEvalFix Go-145: `-1, -11` against `-11, -12` part before `-1`, not inside it."""
    same = "expected and actual hold the same items in another order; "
    assert where_they_part("[]int{-1, -11, 1, -12, 11}", "[]int{-11, -12, -1, 1, 11}") == (
        f"{same}they part after `[]int{{`: expected `-1, -11, 1, -12`, actual `-11, -12, -1, 1`"
    )
    assert where_they_part("[]int{-3, -32, -98, -11, 1}", "[]int{-98, -32, -3, -11, 1}") == (
        f"{same}they part after `[]int{{`: expected `-3, -32, -98`, actual `-98, -32, -3`"
    )
    assert where_they_part("[0, 6, 53, 423, 1234, 145]", "[0, 6, 53, 423, 1234, 14]") == (
        "they part after `… 53, 423, 1234, `: expected `145`, actual `14`"
    )
    assert where_they_part("[1.25, 2.5, 3.75, 4.0, 5.5]", "[1.25, 2.5, 3.5, 4.0, 5.5]") == (
        "they part after `[1.25, 2.5, `: expected `3.75`, actual `3.5`"
    )
    assert where_they_part("12345678901234567890123456", "12345678901234567890123457") == (
        "they part after `…0123456789012345`: expected `6`, actual `7`"  # nothing before it
    )


def test_short_equal_or_wholly_different_values_get_no_line() -> None:
    assert where_they_part("5", "-1") is None
    assert where_they_part(SAID, SAID) is None
    assert where_they_part("x" * 30, "y" * 30) is None


def test_with_partings_gain_it_and_other_lines_stay_as_they_were() -> None:
    line = f"main_test.go:10: Not equal: expected: {SAID} actual  : {GOT}"
    assert with_parting(line) == f"{line} — {where_they_part(SAID, GOT)}"
    assert with_parting("main_test.go:10: Not equal: expected: 5 actual  : -1").endswith("-1")
    assert with_parting("main_test.go:7: Add(2, 3) = -1, want 5").endswith("want 5")


def test_rust_names_its_sides_left_and_right() -> None:
    text = (
        "panicked at src/lib.rs:3\n  left: [5, 8, 6, 8, 3, 8, 2, 8]\n right: [5, 8, 6, 8, 3, 8, 2]"
    )
    assert sides_line(text) == (
        "they part after `…8, 6, 8, 3, 8, 2`: left has `, 8` there, right has not"
    )
    assert sides_line("left: 1") is None


def test_values_that_differ_only_in_whitespace_say_so_in_words_however_short() -> None:
    # HumanEvalFix Go-118: `expected: "" actual : " "`, four attempts kept `return " "`
    line = 'main_test.go:12: Not equal: expected: "" actual  : " "'
    assert with_parting(line) == (
        f'{line} — they part after `"`: actual has a space there, expected has not'
    )
    assert where_they_part("'a\tb'", "'ab'") == (
        "they part after `'a`: expected has a tab there, actual has not"
    )


def test_values_that_differ_only_in_letter_case_say_so() -> None:
    # HumanEvalFix Go-119: `expected: "Yes" actual : "yes"`, the same reply four times
    line = 'main_test.go:14: Not equal: expected: "Yes" actual  : "yes"'
    assert with_parting(line) == (
        f'{line} — they differ only in letter case: expected `"Yes"`, actual `"yes"`'
    )


def test_a_go_empty_slice_against_a_nil_one_says_which_is_which_and_how() -> None:
    # HumanEvalFix Go-7: a rewrite that got every other check right failed on this alone
    line = "main_test.go:10: Not equal: expected: []string{} actual  : []string(nil)"
    assert with_parting(line) == (
        f"{line} — expected is an empty slice `[]string{{}}`, actual a nil one "
        "`[]string(nil)`: a `var x []string` never assigned stays nil; start from "
        "`[]string{}` (or `make([]string, 0)`) where an empty one is meant"
    )
    maps = where_they_part("map[string]int(nil)", "map[string]int{}")
    assert maps == (
        "expected is a nil map `map[string]int(nil)`, actual an empty one `map[string]int{}`: "
        "return nil (or a `var x map[string]int` never assigned) where nothing is found"
    )
    assert where_they_part("[]int{}", "[]string(nil)") is None  # not the same type: no line


def test_a_probe_steps_over_a_string_with_its_escapes_whatever_its_quote() -> None:
    line = """f("a\\"b") === 'c\\'d' && `e`"""
    assert line[string_end(line, 2) :] == ") === 'c\\'d' && `e`"
    assert line[string_end(line, line.index("'")) :] == " && `e`"
    assert string_end('"open', 0) == len('"open') + 1  # unclosed: past the end


def test_a_short_value_with_a_piece_added_is_named_too() -> None:
    """HumanEvalFix Go-153: a `.` missing from a short string is easily read past."""
    assert where_they_part('"Watashi.eIGHt8OKe"', '"WatashieIGHt8OKe"') == (
        'they part after `"Watashi`: expected has `.` there, actual has not'
    )
    assert where_they_part("[]int{2, 4, 6, 8}", "[]int{2, 4, 6}") == (
        "they part after `[]int{2, 4, 6`: expected has `, 8` there, actual has not"
    )
    assert where_they_part("[2]int{0, 1}", "[2]int{0, 0}") is None  # changed, not added
    assert where_they_part("12", "123") is None  # a number is read whole
    assert where_they_part("[]int{10}", "[]int{}") is None  # all of it read at a glance


def test_the_same_items_in_another_order_say_so_and_which_side_is_sorted() -> None:
    assert where_they_part("[5, 1, 653]", "[1, 5, 653]", ("left", "right")) == (
        "left and right hold the same items in another order: right has them in ascending order"
    )
    assert where_they_part("[]int{3, 2, 1}", "[]int{1, 3, 2}") == (
        "expected and actual hold the same items in another order: expected has them in "
        "descending order"
    )
    assert where_they_part('vec!["b", "a, c"]', 'vec!["a, c", "b"]') == (
        "expected and actual hold the same items in another order"
    )
    assert where_they_part("[1, 2, 2]", "[2, 1, 1]") is None  # not the same items
    assert where_they_part("[1, 2]", "(2, 1)") is None  # not the same kind of list
    assert sides_line("  left: [5, 1, 653]\n right: [1, 5, 653]") == (
        "left and right hold the same items in another order: right has them in ascending order"
    )
