"""A repair names the line a change deleted when the toolchain says what it defined is
undefined now."""

from __future__ import annotations

from patchwright.agent.lost_names import lost_definitions, lost_test_modules, undefined_names

GO_BEFORE = """package main

func Groups(s string) []string {
    result := make([]string, 0)
    current := make([]rune, 0)
    for _, c := range s {
        current = append(current, c)
    }
    return append(result, string(current))
}
"""
GO_AFTER = GO_BEFORE.replace("    current := make([]rune, 0)\n", "")


def test_a_go_build_error_on_a_deleted_declaration_names_the_line() -> None:
    report = "build failed: main.go:6: undefined: current\nmain.go:7: undefined: current"
    notes = lost_definitions(report, {"main.go": GO_BEFORE}, {"main.go": GO_AFTER})
    assert notes == [
        "Your change removed `current := make([]rune, 0)` from main.go, which defined "
        "`current`; the code still uses `current`. Keep that line."
    ]


def test_each_toolchains_words_for_an_undefined_name_are_read() -> None:
    report = "\n".join([
        "calc.py:3:12: F821 Undefined name `total`",
        "E   NameError: name 'helper' is not defined",
        "error[E0425]: cannot find value `count` in this scope",
        "src/a.ts(3,1): error TS2304: Cannot find name 'widget'.",
        "ReferenceError: sum is not defined",
        "undefined: total",
    ])  # fmt: skip
    assert undefined_names(report) == ["total", "helper", "count", "widget", "sum"]


def test_python_and_rust_definitions_are_recognised() -> None:
    before = {
        "calc.py": "def helper(x):\n    return x\n\ntotal: int = 0\nvalue = helper(total)\n",
        "src/lib.rs": "fn f() -> i32 {\n    let mut count = 1;\n    count\n}\n",
    }
    after = {
        "calc.py": "value = helper(total)\n",
        "src/lib.rs": "fn f() -> i32 {\n    count\n}\n",
    }
    report = (
        "calc.py:1:9: F821 Undefined name `helper`\ncalc.py:1:16: F821 Undefined name `total`\n"
        "error[E0425]: cannot find value `count` in this scope"
    )
    assert [n.split("`")[1] for n in lost_definitions(report, before, after)] == [
        "def helper(x):",
        "total: int = 0",
        "let mut count = 1;",
    ]


def test_no_note_for_a_name_the_change_did_not_delete() -> None:
    # a misspelt new name, a declaration still there, a comparison that defines nothing
    before = {"main.go": "package main\n\nfunc F(x int) bool {\n    return x == limit\n}\n"}
    after = {"main.go": "package main\n\nfunc F(x int) bool {\n    return x == limti\n}\n"}
    assert lost_definitions("main.go:4: undefined: limti", before, after) == []
    assert lost_definitions("main.go:4: undefined: limit", before, after) == []
    assert (
        lost_definitions("undefined: current", {"main.go": GO_BEFORE}, {"main.go": GO_BEFORE}) == []
    )
    assert lost_definitions("undefined: x", {"new.go": None}, {"new.go": "package main\n"}) == []


def test_a_missing_rust_function_is_not_blamed_on_a_deleted_variable_of_its_name() -> None:
    """HumanEvalFix Rust-114: a rewrite called `min(a, b)` (never imported) where the old
    body had `let mut min = …`; the repair was told to keep that buggy line, which would
    not have defined the function. A deleted `fn` or closure of the name is still named."""
    before = {"src/lib.rs": "fn f(v: Vec<i32>) -> i32 {\n    let mut min = v[0];\n    min\n}\n"}
    after = {"src/lib.rs": "fn f(v: Vec<i32>) -> i32 {\n    min(v[0], v[1])\n}\n"}
    report = "error[E0425]: cannot find function `min` in this scope"
    assert lost_definitions(report, before, after) == []
    for line in (
        "fn min(a: i32, b: i32) -> i32 { a.min(b) }",
        "let min = |a: i32, b: i32| a.min(b);",
    ):
        before = {"src/lib.rs": f"{line}\nfn f(v: Vec<i32>) -> i32 {{\n    min(v[0], v[1])\n}}\n"}
        assert [n.split("`")[1] for n in lost_definitions(report, before, after)] == [line]


LIB = "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests;\n"
GONE = (
    "`cargo test --offline` exits 0, but these tests, which failed before the change, did not "
    "pass in it (they no longer ran, or were skipped): src/lib.rs::tests::add_works."
)


def test_a_dropped_rust_test_module_line_is_named() -> None:
    """Aider's HumanEvalFix Rust-2 reply sent lib.rs without `mod tests;`."""
    dropped = "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    (note,) = lost_test_modules(GONE, {"src/lib.rs": LIB}, {"src/lib.rs": dropped})
    assert note.startswith("Your change removed `mod tests;` from src/lib.rs")
    inlined = LIB.replace("mod tests;", "mod tests {}")
    assert lost_test_modules(GONE, {"src/lib.rs": LIB}, {"src/lib.rs": inlined}) == [note]


def test_no_note_when_the_module_line_stays_or_holds_no_named_test() -> None:
    fixed = LIB.replace("a - b", "a + b")
    assert lost_test_modules(GONE, {"src/lib.rs": LIB}, {"src/lib.rs": fixed}) == []
    other = LIB.replace("mod tests;", "mod helpers;")
    assert lost_test_modules(GONE, {"src/lib.rs": other}, {"src/lib.rs": "fn add() {}\n"}) == []
