"""A Go change that calls a standard package the file does not import gets the import, as
goimports would add it; nothing else is ever imported."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwright.edits import Edit, apply_edits
from patchwright.edits.go_imports import add_std_imports, missing_std_imports

SORT_NUMBERS = """package main

import (
    "strings"
)

// SortNumbers sorts the words for numbers
func SortNumbers(numbers string) string {
    value := map[string]int{"zero": 0, "one": 1, "two": 2}
    name := map[int]string{0: "zero", 1: "one", 2: "two"}
    temp := make([]int, 0)
    for _, s := range strings.Split(numbers, " ") {
        temp = append(temp, value[s])
    }
    out := make([]string, 0)
    for _, i := range temp {
        out = append(out, name[i])
    }
    return strings.Join(out, " ")
}
"""
FIXED = SORT_NUMBERS.replace("    out := make", "    sort.Ints(temp)\n    out := make")


def whole(path: str, text: str) -> Edit:
    return Edit(path, "whole", "", text, "whole")


def test_a_whole_file_reply_that_sorts_gets_import_sort_with_a_note() -> None:
    out = apply_edits([whole("main.go", FIXED)], {"main.go": SORT_NUMBERS})

    assert out.ok
    assert 'import (\n    "sort"\n    "strings"\n)' in (out.new_texts["main.go"] or "")
    assert out.notes == [
        'main.go: imported "sort" (the change uses it; the file did not import it)'
    ]


def test_a_file_without_imports_gets_an_import_line_after_its_package_clause() -> None:
    old = "package main\n\nfunc Lower(s string) string {\n\treturn s\n}\n"
    new = old.replace("return s", "return strings.ToLower(s)")

    fixed, added = add_std_imports(old, new)

    assert added == ["strings"]
    assert fixed.startswith('package main\n\nimport "strings"\n\nfunc Lower')


def test_single_import_lines_get_one_more_and_paths_come_from_the_table() -> None:
    old = 'package main\n\nimport "fmt"\n\nfunc F() int {\n\treturn 1\n}\n'
    new = old.replace("return 1", "fmt.Println(utf8.RuneLen('a'))\n\treturn rand.Intn(2)")

    fixed, added = add_std_imports(old, new)

    assert added == ["math/rand", "unicode/utf8"]
    assert 'import "fmt"\nimport "math/rand"\nimport "unicode/utf8"\n\nfunc F' in fixed


def test_block_entries_go_into_the_first_group_sorted_by_path_as_gofmt_keeps_them() -> None:
    old = 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n\n\t"github.com/x/y"\n)\n\nvar _ = fmt.Sprint(y.Z, os.Args)\n'
    new = old.replace("os.Args)", "os.Args, math.Pi, bits.UintSize, sort.Ints)")

    fixed, _ = add_std_imports(old, new)

    expected = '\t"fmt"\n\t"math"\n\t"math/bits"\n\t"os"\n\t"sort"\n\n\t"github.com/x/y"\n)'
    assert f"import (\n{expected}" in fixed


@pytest.mark.parametrize(
    ("why", "body"),
    [
        ("a local variable of that name", "sort := Sorter{}\n\treturn sort.Len()"),
        ("a parameter of that name", "return func(sort Sorter) int { return sort.Len() }(s)"),
        ("inside a string", 'return len("sort.Ints(x)")'),
        ("inside a comment", "// sort.Ints would do\n\treturn 0"),
        ("a package that is not standard", "return assert.Len()"),
        ("already imported under its path", "return bits.Len(3)"),
    ],
)
def test_nothing_is_imported_for(why: str, body: str) -> None:
    old = 'package p\n\nimport "math/bits"\n\nfunc F(s Sorter) int {\n\treturn 0\n}\n'
    new = old.replace("return 0", body, 1)

    assert missing_std_imports(old, new) == [], why


def test_a_name_the_old_file_already_used_unimported_comes_from_elsewhere_in_the_package() -> None:
    old = "package p\n\nfunc F() int {\n\treturn json.Len()\n}\n"  # json: declared in a sibling
    new = old.replace("json.Len()", "json.Len() + 1")

    assert missing_std_imports(old, new) == []


def test_python_files_are_not_touched_by_the_go_fix() -> None:
    out = apply_edits([whole("a.py", "x = sort.Ints\n")], {"a.py": "x = 1\n"})

    assert out.new_texts == {"a.py": "x = sort.Ints\n"} and out.notes == []


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_the_fixed_file_builds_where_the_reply_as_sent_does_not(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/nums\n\ngo 1.19\n")
    main = tmp_path / "main.go"
    env = {"GOFLAGS": "-mod=mod", "GOCACHE": str(tmp_path / ".cache"), "HOME": str(tmp_path),
           "PATH": os.environ["PATH"], "GO111MODULE": "on"}  # fmt: skip

    def vet() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["go", "vet", "."], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip

    main.write_text(FIXED)
    as_sent = vet()
    applied = apply_edits([whole("main.go", FIXED)], {"main.go": SORT_NUMBERS})
    main.write_text(applied.new_texts["main.go"] or "")
    fixed = vet()

    assert as_sent.returncode != 0 and "name: sort" in as_sent.stderr
    assert fixed.returncode == 0, fixed.stderr


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_gofmt_finds_nothing_to_change_in_a_file_given_imports(tmp_path: Path) -> None:
    old = 'package calc\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nvar A = fmt.Sprint(os.Args)\n'
    new = old.replace("os.Args)", "os.Args, sort.IntsAreSorted(nil), math.Pi)")
    path = tmp_path / "calc.go"
    path.write_text(add_std_imports(old, new)[0])

    listed = subprocess.run(["gofmt", "-l", str(path)], capture_output=True, text=True, check=True)

    assert listed.stdout == ""
