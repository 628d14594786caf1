"""A change that verification turned down is known again when it comes back re-spaced or
re-commented in a language where layout means nothing — never where it means something."""

from __future__ import annotations

from patchwright.agent.repeats import repeats, same_code

FAILED = (
    b"package main\n\nfunc Gcd(a int, b int) int {\n    for i := 2; i <= b; i++ { // was i < b\n"
    b'        _ = " "\n    }\n    return 1\n}\n'
)
RESPACED = (
    b"package main\n\nfunc Gcd(a int,b int) int{\n\tfor i := 2; i <= b; i++ {\n"
    b'\t\t_ = " "\n\t}\n\treturn 1\n}\n'
)


def test_a_go_change_respaced_and_without_its_comment_repeats_the_failed_one() -> None:
    assert repeats({"main.go": RESPACED}, [{"main.go": FAILED}])


def test_a_change_inside_a_string_literal_or_to_the_code_is_new() -> None:
    assert not repeats({"main.go": RESPACED.replace(b'" "', b'""')}, [{"main.go": FAILED}])
    assert not repeats({"main.go": RESPACED.replace(b"<=", b"<")}, [{"main.go": FAILED}])
    assert not repeats({"main.go": RESPACED, "util.go": b"package main\n"}, [{"main.go": FAILED}])


def test_python_indentation_is_code_so_only_identical_bytes_repeat() -> None:
    failed = b"def f(x):\n    if x:\n        return 1\n    return 2\n"
    moved = b"def f(x):\n    if x:\n        return 1\n        return 2\n"
    assert not repeats({"a.py": moved}, [{"a.py": failed}])
    assert repeats({"a.py": failed}, [{"a.py": failed}])
    assert repeats({"a.py": None}, [{"a.py": None}])  # the same deletion


def test_re_spacing_or_re_commenting_a_go_file_changes_no_code_but_a_string_does() -> None:
    old = 'package main\n\nfunc Add(a, b int) int {\n\treturn a - b // "x y"\n}\n'
    assert same_code("main.go", old, old.replace("\t", "    ").replace("a, b", "a,b"))
    assert same_code("main.go", old, old.replace("// ", "// the difference: "))
    assert not same_code("main_test.go", old, old.replace("// ", "// Output: "))  # checked
    assert not same_code("main.go", old, "//go:build linux\n" + old)  # a directive
    assert not same_code("main.go", old, 'package main\nvar s = "a b"\n')
    assert not same_code("a.py", "x = 1\n", "x  =  1\n")  # Python: never judged by layout
    assert not same_code("main.go", None, old)


def test_a_rust_comment_no_tool_reads_is_layout_but_a_doc_comment_is_not() -> None:
    """HumanEvalFix Rust-38: the first reply added "// Corrected line: …" to a function it
    left as it was, and was tested as a change."""
    old = 'fn f() -> String {\n    let s = "http://a";\n    s.to_string()\n}\n'
    noted = old.replace("    s.to_string()", "    // Corrected line\n    s.to_string() /* ok */")
    assert same_code("src/lib.rs", old, noted)
    assert not same_code("src/lib.rs", old, old.replace("http://a", "http://b"))
    assert not same_code("src/lib.rs", old, "/// ```\n/// assert!(true);\n/// ```\n" + old)
    multi = 'fn f() -> String {\n    String::from("a\n// b")\n}\n'  # a string over lines
    assert not same_code("src/lib.rs", multi, multi.replace("// b", "// c"))
