"""The rule behind two compiler errors small models answer badly: a conditional operator in
a language without one, and Go's unused variable."""

from __future__ import annotations

from patchwright.agent.lang_slips import slip_notes
from patchwright.agent.prompts import render
from patchwright.agent.relations.suspects import Suspect

GO = (
    "package main\n\nfunc Pick(n int) string {\n"
    '    return isBig(n) ? "big" : "small" // big? yes: no\n}\n'
)
SYNTAX = "- main.go:4: [syntax] syntax error near 'isBig(n) ? \"big\" :'"


def test_a_conditional_operator_in_go_rust_or_python_is_told_the_languages_way() -> None:
    assert slip_notes(SYNTAX, {"main.go": GO}) == [
        'main.go:4: `return isBig(n) ? "big" : "small" // big? yes: no` — Go has no '
        "conditional operator `c ? a : b`: write an if statement (`if c { return a }` then "
        "`return b`)."
    ]
    rust = 'pub fn pick(n: i32) -> &\'static str {\n    n > 10 ? "big" : "small"\n}\n'
    python = "def pick(n):\n    return n > 10 ? 'big' : 'small'\n"
    assert slip_notes("error: expected one of", {"src/lib.rs": rust})[0].endswith(
        "Rust has no conditional operator `c ? a : b`: write `if c { a } else { b }`."
    )
    assert slip_notes("SyntaxError: invalid syntax", {"pick.py": python})[0].endswith(
        "Python has no `c ? a : b`: write `a if c else b`."
    )


def test_pythons_conditional_in_go_rust_or_javascript_is_told_the_languages_way() -> None:
    """HumanEvalFix Go-141's repair: `return "Yes" if count <= 3 else "No"`, in Go."""
    go = 'package main\n\nfunc Check(count int) string {\n    return "Yes" if count <= 3 else "No"\n}\n'
    assert slip_notes("syntax error near '\"Yes\" if'", {"main.go": go}) == [
        'main.go:4: `return "Yes" if count <= 3 else "No"` — Go has no conditional expression '
        "`a if c else b`: write an if statement (`if c { return a }` then `return b`)."
    ]
    rust = "fn f(n: i32) -> i32 {\n    1 if n > 0 else 2\n}\n"
    js = "const f = (n) => 1 if n > 0 else 2;\n"
    assert slip_notes("error: expected", {"src/lib.rs": rust})[0].endswith(
        "Rust writes a conditional as `if c { a } else { b }`."
    )
    assert slip_notes("SyntaxError: Unexpected token 'if'", {"f.js": js})[0].endswith(
        "JavaScript writes a conditional as `c ? a : b`."
    )


def test_what_is_not_a_conditional_operator_says_nothing() -> None:
    rust = "fn read() -> Result<u8, E> {\n    let n = parse(s)?;\n    Ok(n)\n}\n"
    go = "package main\n\n// Pick answers: big? small : yes\nvar q = \"a ? b : c\"\nvar r = '?'\n"
    js = "const pick = (n) => (n > 10 ? 'big' : 'small');\n} else if (n) { return 1 } else {\n"
    rust += "fn g(c: bool) -> i32 {\n    let x = if c { 1 } else { 2 };\n    return if c { x } else { 0 };\n}\n"
    go += "func h(c bool) int {\n\tif c {\n\t\treturn 1\n\t} else if !c {\n\t\treturn 2\n\t}\n\treturn 3\n}\n"
    texts = {"src/lib.rs": rust, "main.go": go, "pick.js": js}
    assert slip_notes("syntax error: expected", texts) == []
    assert slip_notes("a test failed", {"main.go": GO}) == []  # no syntax error: no scan


def test_gos_unused_variable_is_told_the_rule_and_the_ways_out() -> None:
    old = "main.go:22: is_prime declared but not used"  # go 1.19
    new = "./main.go:22:5: declared and not used: is_prime"  # go 1.20 on
    for report in (old, new):
        assert slip_notes(report, {}) == [
            "Go refuses a variable that is declared and never used, as `is_prime` is: use it "
            "where the code needs it, or delete it."
        ]


def test_gos_missing_return_is_told_where_it_comes_from() -> None:
    """HumanEvalFix Go-158: a sort function whose `if` returns and nothing after it does."""
    (note,) = slip_notes("    build failed: main.go:29: missing return", {})
    assert note.startswith("Go says `missing return` where a function that returns a value")
    assert slip_notes("assert: missing return value in the docs", {}) == []


def test_a_function_retry_shows_no_empty_test_when_the_failure_is_a_build() -> None:
    built = Suspect("Pick", "func Pick() {}", test_id=".::[build]", says="build failed")
    args = {"path": "main.go", "lang": "go", "task": "", "runner": "the test run", "doc": "comment"}
    for template in ("fix_function", "rewrite_function"):
        prompt = render(template, text="package main", suspect=built, shown="…", **args)
        assert "The failing test" not in prompt and "build failed" in prompt, template
