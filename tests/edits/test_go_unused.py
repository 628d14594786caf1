"""A Go change that leaves an import unused loses the import, as goimports would remove it,
and a test function it writes into a file that is not a test file is left out; both are
noted, and nothing the file already had is touched."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwright.edits import Edit, apply_edits
from patchwright.edits.go_unused import tidy, unused_imports

PALINDROME = """package main

import (
\t"strings"
)

// IsPalindrome tells whether s reads the same backwards.
func IsPalindrome(s string) bool {
\tvar b strings.Builder
\tfor i := len(s) - 1; i >= 0; i-- {
\t\tb.WriteByte(s[i])
\t}
\treturn b.String() == s
}
"""
REWRITTEN = """package main

import (
\t"strings"
)

// IsPalindrome tells whether s reads the same backwards.
func IsPalindrome(s string) bool {
\tfor i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
\t\tif s[i] != s[j] {
\t\t\treturn false
\t\t}
\t}
\treturn true
}
"""
WITH_TEST = (
    REWRITTEN.replace('\t"strings"\n', '\t"strings"\n\t"testing"\n')
    + """
func TestIsPalindrome(t *testing.T) {
\tif !IsPalindrome("aba") {
\t\tt.Error("aba")
\t}
}
"""
)


def whole(path: str, text: str) -> Edit:
    return Edit(path, "whole", "", text, "whole")


def test_an_import_the_change_no_longer_uses_goes_with_its_emptied_block_and_a_note() -> None:
    out = apply_edits([whole("main.go", REWRITTEN)], {"main.go": PALINDROME})

    assert out.ok
    assert out.new_texts["main.go"] == REWRITTEN.replace('import (\n\t"strings"\n)\n\n', "")
    assert out.notes == ['main.go: removed the import of "strings" (the file no longer uses it)']


def test_the_other_imports_of_a_block_stay_where_they_were() -> None:
    old = PALINDROME.replace('\t"strings"\n', '\t"fmt"\n\t"strings"\n').replace(
        "return b.String() == s", "fmt.Println(s)\n\treturn b.String() == s"
    )
    new = REWRITTEN.replace('\t"strings"\n', '\t"fmt"\n\t"strings"\n').replace(
        "return true", "fmt.Println(s)\n\treturn true"
    )

    fixed, notes = tidy("main.go", old, new)

    assert 'import (\n\t"fmt"\n)\n' in fixed and len(notes) == 1


@pytest.mark.parametrize(
    ("why", "old", "new"),
    [
        ("the file already left it unused", REWRITTEN, REWRITTEN.replace("true", "false")),
        ("a blank import", PALINDROME.replace('"strings"', '_ "strings"'), REWRITTEN.replace('"strings"', '_ "strings"')),
        ("import C", PALINDROME.replace('"strings"', '"strings"\n\t"C"'), REWRITTEN.replace('"strings"', '"C"')),
        ("still used", PALINDROME, PALINDROME.replace("b.WriteByte", "_ = strings.ToLower(s)\n\t\tb.WriteByte")),
        ("a versioned path the change added", REWRITTEN, REWRITTEN.replace('"strings"', '"strings"\n\t"example.com/x/v2"')),
    ],
)  # fmt: skip
def test_an_import_stays_when(why: str, old: str, new: str) -> None:
    kept = [spec for spec in unused_imports(old, new) if spec[1] != "strings"]

    assert kept == [], why


def test_a_test_function_written_into_main_go_is_left_out_with_the_testing_import() -> None:
    out = apply_edits([whole("main.go", WITH_TEST)], {"main.go": PALINDROME})

    assert out.ok
    text = out.new_texts["main.go"] or ""
    assert "TestIsPalindrome" not in text and '"testing"' not in text
    assert "func IsPalindrome(s string) bool {" in text and text.endswith("}\n")
    assert out.notes[0] == (
        "main.go: left out TestIsPalindrome (a test function outside a _test.go file; go test "
        "never runs it there)"
    )


def test_a_test_function_in_a_test_file_or_one_the_file_had_stays() -> None:
    assert "func TestIsPalindrome(" in tidy("main_test.go", PALINDROME, WITH_TEST)[0]
    assert "TestIsPalindrome" in tidy("main.go", WITH_TEST, WITH_TEST + "\n// more\n")[0]


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
@pytest.mark.parametrize("reply", [REWRITTEN, WITH_TEST])
def test_the_tidied_file_builds_where_the_reply_as_sent_does_not(
    tmp_path: Path, reply: str
) -> None:
    (tmp_path / "go.mod").write_text("module example.com/pal\n\ngo 1.19\n")
    (tmp_path / "main_test.go").write_text(
        'package main\n\nimport "testing"\n\nfunc TestIsPalindrome(t *testing.T) {\n'
        '\tif IsPalindrome("ab") {\n\t\tt.Error("ab")\n\t}\n}\n'
    )
    main = tmp_path / "main.go"
    env = {"GOFLAGS": "-mod=mod", "GOCACHE": str(tmp_path / ".cache"), "HOME": str(tmp_path),
           "PATH": os.environ["PATH"], "GO111MODULE": "on"}  # fmt: skip

    def test() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["go", "test", "."], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip

    main.write_text(reply)
    as_sent = test()
    main.write_text(
        apply_edits([whole("main.go", reply)], {"main.go": PALINDROME}).new_texts["main.go"] or ""
    )
    tidied = test()
    gofmt = subprocess.run(["gofmt", "-l", str(main)], capture_output=True, text=True, check=True)

    assert as_sent.returncode != 0
    assert (
        "imported and not used" in as_sent.stdout + as_sent.stderr
        or "redeclared" in as_sent.stdout + as_sent.stderr
    )
    assert tidied.returncode == 0, tidied.stdout + tidied.stderr
    assert gofmt.stdout == ""
