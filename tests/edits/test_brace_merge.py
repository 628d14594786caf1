"""A reply of definitions for a Go, Rust or JavaScript file — the corrected function alone, as
a small model sends it — is read as those definitions changed: each replaces its namesake,
the rest of the file stays, and the imports it brings are added. Anything it cannot place is
not merged."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwright.edits import Edit, apply_edits, parse_reply
from patchwright.edits.brace_merge import dropped, merge, replaceable

COUNT = """package main

import (
    "fmt"
)

// CountDistinct counts the distinct characters, regardless of case.
func CountDistinct(str string) int {
    set := make(map[rune]bool)
    for _, r := range str {
        set[r] = true
    }
    return len(set)
}

func Show(n int) string {
    return fmt.Sprint(n)
}
"""
FIXED_FUNCTION = """func CountDistinct(str string) int {
    set := make(map[rune]bool)
    for _, r := range strings.ToLower(str) {
        set[r] = true
    }
    return len(set)
}
"""
FIXED = COUNT.replace("range str {", "range strings.ToLower(str) {").replace(
    '    "fmt"\n', '    "fmt"\n    "strings"\n'
)


def test_a_go_function_alone_replaces_its_namesake_and_keeps_the_doc_comment() -> None:
    merged = merge("main.go", COUNT, FIXED_FUNCTION)

    assert merged == COUNT.replace("range str {", "range strings.ToLower(str) {")


def test_the_imports_of_a_go_reply_go_into_the_import_block() -> None:
    reply = 'import "strings"\n\n' + FIXED_FUNCTION

    assert merge("main.go", COUNT, reply) == FIXED


def test_a_reply_with_its_own_doc_comment_replaces_the_old_one() -> None:
    reply = "// CountDistinct counts letters, ignoring case.\n" + FIXED_FUNCTION
    merged = merge("main.go", COUNT, reply) or ""

    assert "counts letters, ignoring case" in merged and "regardless of case" not in merged
    assert merged.count("func CountDistinct") == 1


def test_a_whole_go_file_that_drops_a_function_is_merged_through_apply() -> None:
    whole_reply = "package main\n\n" + FIXED_FUNCTION
    edit = Edit("main.go", "whole", "", whole_reply, "whole")

    out = apply_edits([edit], {"main.go": COUNT})

    assert dropped("main.go", COUNT, whole_reply) == ["Show"]
    assert out.ok and "func Show" in (out.new_texts["main.go"] or "")
    assert "strings.ToLower(str)" in (out.new_texts["main.go"] or "")
    assert '"strings"' in (out.new_texts["main.go"] or "")  # added as goimports would


def test_a_go_file_of_one_function_sent_without_its_package_clause_is_merged() -> None:
    old = "package main\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
    reply = "func Add(a, b int) int {\n\treturn a + b\n}\n"

    out = apply_edits([Edit("main.go", "whole", "", reply, "whole")], {"main.go": old})

    assert out.new_texts == {"main.go": old.replace("a - b", "a + b")}
    assert "left out the package clause" in (out.results[0].message or "")
    assert out.notes == [
        "main.go: the reply left out the package clause; read as the definitions it changes, "
        "the rest of the file kept"
    ]  # said in the run's notes and the repair, not only in the block's result


def test_an_unnamed_go_block_belongs_to_the_shown_file_that_defines_its_function() -> None:
    shown = {"main.go": COUNT, "main_test.go": "package main\n\nfunc TestX(t *T) {}\n"}
    parsed = parse_reply(f"The loop ignores case.\n```go\n{FIXED_FUNCTION}```\n", shown=shown)

    [edit] = parsed.edits
    assert (edit.path, edit.fmt) == ("main.go", "definitions")
    out = apply_edits(parsed.edits, shown)
    assert "strings.ToLower(str)" in (out.new_texts["main.go"] or "")


OCTAL = """package octal

func ParseOctal(input string) (int64, error) {
	return 0, nil
}

type Error struct {
	input string
}

func (e *Error) Error() string {
	return "bad: " + e.input
}
"""


def test_a_go_type_and_its_method_of_one_name_are_two_places() -> None:
    """Polyglot Go octal: once the file held ``type Error`` and ``func (e *Error) Error()``,
    each later reply of the two was refused as dropping ``ParseOctal`` (the name ``Error``
    was held twice, so nothing could be placed), four replies in a row."""
    reply = OCTAL.split("type Error", 1)[1].replace('"bad: "', '"invalid: "')
    merged = merge("octal.go", OCTAL, "package octal\n\ntype Error" + reply)

    assert merged == OCTAL.replace('"bad: "', '"invalid: "')


def test_two_types_methods_of_one_name_are_placed_by_receiver() -> None:
    old = (
        "package shapes\n\ntype A struct{}\n\ntype B struct{}\n\n"
        'func (a A) String() string {\n\treturn "a"\n}\n\n'
        'func (b *B) String() string {\n\treturn "b"\n}\n'
    )
    reply = 'func (b *B) String() string {\n\treturn "B"\n}\n'

    assert merge("shapes.go", old, reply) == old.replace('return "b"', 'return "B"')


RUST = """use std::collections::HashMap;

pub struct Counter {
    seen: HashMap<char, u32>,
}

impl Counter {
    pub fn distinct(&self) -> usize {
        self.seen.len() + 1
    }
}
"""


def test_a_rust_method_sent_alone_replaces_the_one_method_of_that_name_indented() -> None:
    reply = "pub fn distinct(&self) -> usize {\n    self.seen.len()\n}\n"

    assert merge("src/lib.rs", RUST, reply) == RUST.replace("len() + 1", "len()")
    assert replaceable("src/lib.rs", RUST) == {"Counter", "distinct"}


def test_a_rust_use_line_the_file_lacks_is_added_after_its_own() -> None:
    reply = "use std::collections::HashSet;\n\npub fn distinct(&self) -> usize {\n    0\n}\n"

    merged = merge("src/lib.rs", RUST, reply) or ""

    assert merged.startswith("use std::collections::HashMap;\nuse std::collections::HashSet;\n")


JS = """const { sum } = require('./sum');

function average(xs) {
  return sum(xs) / (xs.length + 1);
}

module.exports = { average };
"""


def test_a_javascript_function_is_replaced_and_the_exports_stay() -> None:
    reply = "function average(xs) {\n  return sum(xs) / xs.length;\n}\n"

    assert merge("src/avg.js", JS, reply) == JS.replace("(xs.length + 1)", "xs.length")


def test_what_cannot_be_placed_is_not_merged() -> None:
    twice = "package main\n\nfunc init() { a = 1 }\n\nfunc init() { b = 2 }\n"  # Go allows it
    assert merge("main.go", twice, "func init() { a = 3 }\n") is None
    assert merge("main.go", COUNT, "var limit = 3\n\n" + FIXED_FUNCTION) is None  # not in the file
    assert merge("main.go", COUNT, "fmt.Println(1)\n") is None  # no definition at all


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_the_merged_go_file_builds_and_is_gofmt_clean(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/count\n\ngo 1.19\n")
    merged = merge("main.go", COUNT.replace("    ", "\t"), FIXED_FUNCTION.replace("    ", "\t"))
    (tmp_path / "main.go").write_text(merged or "")
    env = {"GOFLAGS": "-mod=mod", "GOCACHE": str(tmp_path / ".cache"), "HOME": str(tmp_path),
           "PATH": os.environ["PATH"], "GO111MODULE": "on"}  # fmt: skip

    vet = subprocess.run(["go", "vet", "."], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=False)  # fmt: skip

    assert vet.returncode != 0 and "strings" in vet.stderr  # the merge alone: no import yet
    fixed = apply_edits([Edit("main.go", "whole", "", FIXED_FUNCTION.replace("    ", "\t"),
                              "definitions")], {"main.go": COUNT.replace("    ", "\t")})  # fmt: skip
    (tmp_path / "main.go").write_text(fixed.new_texts["main.go"] or "")
    vet = subprocess.run(["go", "vet", "."], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=False)  # fmt: skip
    fmt = subprocess.run(["gofmt", "-l", "."], cwd=tmp_path, env=env, capture_output=True,
                         text=True, check=False)  # fmt: skip
    assert vet.returncode == 0, vet.stderr
    assert fmt.stdout == ""
