"""Where the code writes the string a failed check got: the lines, quoted, when they are few."""

from __future__ import annotations

from patchwright.agent.value_origin import where_written

GO = """package main

// GetClosestVowel("ab") ==> ""
func GetClosestVowel(word string) string {
    if len(word) < 3 {
        return " "
    }
    vowels := "aeiou"
    return " "
}
"""
TESTIFY = (
    "- failed: main_test.go::TestGetClosestVowel\n"
    '    main_test.go:12: Not equal: expected: "" actual  : " " — they part after `"`\n'
    '    main_test.go:13: Not equal: expected: "" actual  : " "\n'
)


def test_a_string_the_test_got_is_shown_where_the_code_writes_it() -> None:
    assert where_written(TESTIFY, {"main.go": GO}) == (
        'The test got `" "` where it expected `""`; the code writes `" "` here:\n'
        '- main.go:6: `return " "`\n'
        '- main.go:9: `return " "`'
    )


def test_sides_not_named_are_each_looked_for() -> None:
    rust = 'assertion `left == right` failed\n  left: "yes"\n right: "Yes"\n'
    code = (
        'fn answer(ok: bool) -> String {\n    if ok { "yes".to_string() } else { "no".into() }\n}\n'
    )
    assert where_written(rust, {"src/lib.rs": code}) == (
        'The failed check compared `"yes"` with `"Yes"`; the code writes `"yes"` here:\n'
        '- src/lib.rs:2: `if ok { "yes".to_string() } else { "no".into() }`'
    )
    pytest = "E       AssertionError: assert 'yes' == 'Yes'\n"
    code = "def answer(ok):\n    \"\"\"Say 'yes' or 'no'.\"\"\"\n    return 'yes' if ok else 'no'\n"
    assert where_written(pytest, {"answer.py": code}).endswith(
        "here:\n- answer.py:3: `return 'yes' if ok else 'no'`"
    )


def test_jest_and_node_name_the_value_received() -> None:
    jest = '    Expected: "Yes"\n    Received: "yes"\n'
    node = "Expected values to be strictly equal:\n\n'yes' !== 'Yes'\n"
    code = "export const answer = (ok) => (ok ? 'yes' : 'no');\n"
    assert where_written(jest, {"answer.js": code}).startswith(
        'The test got `"yes"` where it expected `"Yes"`; the code writes `"yes"` here:'
    )
    assert where_written(node, {"answer.js": code}).startswith(
        "The test got `'yes'` where it expected `'Yes'`; the code writes `'yes'` here:"
    )


def test_the_messages_people_write_name_the_value_got_too() -> None:
    code = 'func Answer(ok bool) string {\n    if ok {\n        return "yes"\n    }\n    return "No"\n}\n'
    for report in (
        'answer_test.go:9: Answer(true) = "yes", want "Yes"',
        'answer_test.go:9: got "yes", want "Yes"',
        'answer_test.go:9: expected "Yes", got "yes"',
        'answer_test.go:9: Expected: "Yes" but got: "yes"',
    ):
        assert where_written(report, {"answer.go": code}) == (
            'The test got `"yes"` where it expected `"Yes"`; the code writes `"yes"` here:\n'
            '- answer.go:3: `return "yes"`'
        ), report
    unittest = "AssertionError: 'yes' != 'Yes'\n"  # assertEqual(first, second): not named
    assert where_written(unittest, {"answer.go": code}).startswith(
        "The failed check compared `'yes'` with `'Yes'`; the code writes `'yes'` here:"
    )


def test_comments_docstrings_and_doctests_are_not_where_the_code_writes_it() -> None:
    code = (
        '"""Says "yes".\n\n>>> answer(True)\n\'yes\'\n"""\n\n\n'
        "def answer(ok):\n    # returns 'yes'\n    return ok\n"
    )
    assert where_written("E   assert 'yes' == 'Yes'\n", {"answer.py": code}) == ""


def test_nothing_when_the_value_is_written_often_or_the_expected_one_is_written_too() -> None:
    """HumanEvalFix Go-141 returns "Yes" where the tests want "No", and writes both: what is
    wrong is which one it returns."""
    often = "".join(f'    a{i} := " "\n' for i in range(4))
    both = '    return " "\n    return ""\n'
    sides = '  left: " "\n right: ""\n'
    assert where_written(TESTIFY, {"main.go": often}) == ""
    assert where_written(sides, {"main.go": both}) == ""
    assert where_written(TESTIFY, {"main.go": both}) == ""


def test_nothing_for_numbers_escapes_or_a_value_only_inside_a_longer_string() -> None:
    numbers = "main_test.go:9: Not equal: expected: 3 actual  : 2\n"
    escaped = 'main_test.go:9: Not equal: expected: "a" actual  : "\\x00"\n'
    assert where_written(numbers, {"main.go": "    return 2\n"}) == ""
    assert where_written(escaped, {"main.go": '    return "\\x00"\n'}) == ""
    assert where_written(TESTIFY, {"main.go": '    return "a " + "b"\n'}) == ""


def test_block_comments_are_not_where_the_code_writes_it() -> None:
    """HumanEvalFix Rust-119: the doc comment says "Return 'Yes' if …" between /* and */."""
    rust = (
        "/*\n  Return 'Yes' if there's a way, and 'No' otherwise.\n*/\n"
        'fn match_parens(s: &str) -> &str {\n    if s.is_empty() {\n        return "yes";\n'
        '    }\n    "no"\n}\n'
    )
    report = '      left: "yes"\n     right: "Yes"\n'
    assert where_written(report, {"src/lib.rs": rust}) == (
        'The failed check compared `"yes"` with `"Yes"`; the code writes `"yes"` here:\n'
        '- src/lib.rs:6: `return "yes";`'
    )


def test_the_side_the_tests_write_is_the_one_expected() -> None:
    """HumanEvalFix JavaScript's value probe prints `left` and `right`; the test writes `'u'`,
    so `" "` is the value got."""
    code = "const f = (w) => {\n  if (w.length > 5) { return w[1] }\n  return ' '\n}\n"
    tests = {"main.test.js": "console.assert(f('yogurt') === 'u')\n"}
    report = "main.test.js:9 compared `f('yogurt') === 'u'`: left `\" \"`, right `\"u\"`\n"
    assert where_written(report, {"main.js": code}).startswith(
        'The failed check compared `" "` with `"u"`'
    )
    assert where_written(report, {"main.js": code}, tests) == (
        'The test got `" "` where it expected `"u"`; the code writes `" "` here:\n'
        "- main.js:3: `return ' '`"
    )


def test_a_string_the_value_got_holds_and_the_expected_one_does_not_is_shown_too() -> None:
    """HumanEvalFix Rust-118: `" u"` for `"u"`, from the `" "` the result starts as."""
    rust = (
        'fn closest(word: &str) -> String {\n    let vowels = "aeiou";\n'
        "    let mut out = \" \".to_string();\n    out.push('u');\n    out\n}\n"
    )
    report = '      left: " u"\n     right: "u"\n'
    tests = {"src/tests.rs": 'assert_eq!(closest("yogurt"), "u");\n'}
    assert where_written(report, {"src/lib.rs": rust}, tests) == (
        'The test got `" u"` where it expected `"u"`; the code writes `" "`, which the value '
        "got holds and the one expected does not, here:\n"
        '- src/lib.rs:3: `let mut out = " ".to_string();`'
    )
    python = "def concat(strings):\n    return ' '.join(strings)\n"
    pytest = "E       AssertionError: assert 'x y z' == 'xyz'\n"
    assert where_written(pytest, {"concat.py": python}, {"t.py": "assert f() == 'xyz'"}).endswith(
        "here:\n- concat.py:2: `return ' '.join(strings)`"
    )
    assert where_written(pytest, {"concat.py": python}) == ""  # which side is which: not known


def test_the_lines_that_build_a_string_of_the_form_got_are_shown() -> None:
    """HumanEvalFix Go-79: `"db0d"` for `"db0db"`, from `fmt.Sprintf("db%bd", decimal)`; the
    same line is not quoted again for the next value."""
    go = 'package main\n\nimport "fmt"\n\nfunc D(n int) string {\n    return fmt.Sprintf("db%bd", n)\n}\n'
    report = (
        '    main_test.go:10: Not equal: expected: "db0db" actual  : "db0d"\n'
        '    main_test.go:11: Not equal: expected: "db100000db" actual  : "db100000d"\n'
    )
    assert where_written(report, {"main.go": go}) == (
        'The test got `"db0d"` where it expected `"db0db"`; the code builds a string of the '
        "form of the value got, and not of the one expected, here:\n"
        '- main.go:6: `return fmt.Sprintf("db%bd", n)`'
    )
    js = 'const d = (n) => {\n  return "db" + n.toString(2) + "d";\n}\n'
    node = 'main.test.js:9 compared `d(0) === \'db0db\'`: left `"db0d"`, right `"db0db"`\n'
    assert where_written(node, {"main.js": js}, {"main.test.js": "d(0) === 'db0db'"}).endswith(
        'here:\n- main.js:2: `return "db" + n.toString(2) + "d";`'
    )
    assert where_written(report.replace('"db0db"', '"x0db"'), {"main.go": go}).count("here:") == 1


def test_a_list_of_one_string_is_read_as_that_string() -> None:
    """HumanEvalFix Go-113: testify prints `[]string{"…"}`; Rust and pytest print `["…"]`."""
    go = 'func Odd(n int) []string {\n    return []string{fmt.Sprintf("%dn of %d the", n, n)}\n}\n'
    testify = (
        '    Not equal: expected: []string{"4n of the"}\n'
        '               actual  : []string{"4n of 4 the"}\n'
    )
    assert where_written(testify, {"main.go": go}).endswith(
        'here:\n- main.go:2: `return []string{fmt.Sprintf("%dn of %d the", n, n)}`'
    )
    rust = '      left: ["4n of 4 the"]\n     right: ["4n of the"]\n'
    tests = {"src/tests.rs": 'assert!(odd(4) == ["4n of the"]);'}
    assert where_written(rust, {"src/lib.rs": 'format!("{}n of {} the", n, n)'}, tests)


def test_a_value_the_code_only_compares_with_is_not_one_it_writes() -> None:
    """HumanEvalFix JavaScript-118: `word[i] != 'u'` beside `return ' '` is no choice between
    two values written: the line that writes `' '` is shown."""
    js = (
        "const closest = (word) => {\n  for (let i = 1; i < word.length; i++) {\n"
        "    if (word[i] != 'u' && 'o' !== word[i]) { return word[i] }\n  }\n  return ' '\n}\n"
    )
    probe = "main.test.js:9 compared `closest('yogurt') === 'u'`: left `\" \"`, right `\"u\"`\n"
    assert where_written(probe, {"main.js": js}) == (
        'The failed check compared `" "` with `"u"`; the code writes `" "` here:\n'
        "- main.js:5: `return ' '`"
    )
    arrow = "const closest = (word) => ' '\nconst other = (w) => 'u'\n"
    assert where_written(probe, {"main.js": arrow}) == ""  # writes both, as values
