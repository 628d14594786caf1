"""A Go change that copies into its file the types or functions another file of the package
already declares loses the copies, with a note naming the file that keeps them; what the
file had, methods, test files and other packages are left alone."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from patchwright.agent.working_copy import WorkingCopy
from patchwright.edits.go_redeclared import drop_redeclared
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file

TYPES = """// A Reactor manages linked cells.
type Reactor interface {
\tCreateInput(int) InputCell
}

// An InputCell has a changeable value.
type InputCell interface {
\tValue() int
\tSetValue(int)
}
"""
INTERFACES = f'package react\n\n{TYPES}\nfunc Version() string {{ return "1" }}\n'
STUB = """package react

// Define the reactor and cell types here.

func New() Reactor {
\tpanic("Please implement the New function")
}
"""
REPLY = (
    "package react\n\n"
    + TYPES
    + """
type reactor struct{}

type cell struct{ value int }

func (c *cell) Value() int { return c.value }

func (c *cell) SetValue(v int) { c.value = v }

func New() Reactor { return &reactor{} }

func (r *reactor) CreateInput(initial int) InputCell { return &cell{initial} }
"""
)


def test_the_copied_interfaces_are_left_out_and_the_note_names_their_file() -> None:
    new, notes = drop_redeclared(
        "react.go", STUB, REPLY, {"interfaces.go": (INTERFACES, INTERFACES)}
    )
    assert "type Reactor interface" not in new and "type InputCell interface" not in new
    assert "// A Reactor manages" not in new  # its comment goes with it
    assert "type reactor struct{}" in new and "func New() Reactor" in new
    assert "func (c *cell) Value() int" in new  # a method shares a name, not a declaration
    assert notes == [
        "react.go: left out Reactor, InputCell (interfaces.go declares Reactor, InputCell "
        "already; a Go package declares each name once, so they stay there)"
    ]


def test_a_copied_function_goes_too_but_init_and_what_the_file_had_stay() -> None:
    had = STUB + '\nfunc Version() string { return "0" }\n'
    new, notes = drop_redeclared("react.go", had, had + "\nfunc init() {}\n", {
        "interfaces.go": (INTERFACES + "\nfunc init() {}\n",) * 2})  # fmt: skip
    assert (new, notes) == (had + "\nfunc init() {}\n", [])
    copied = STUB + '\nfunc Version() string { return "2" }\n'
    new, notes = drop_redeclared(
        "react.go", STUB, copied, {"interfaces.go": (INTERFACES, INTERFACES)}
    )
    assert "Version" not in new and notes[0].startswith("react.go: left out Version (")


@pytest.mark.parametrize(
    ("path", "other"),
    [
        ("react_test.go", "interfaces.go"),  # a test file is not touched
        ("react.go", "react_test.go"),  # an external test package (package react_test)
        ("react.go", "sub/interfaces.go"),  # another directory is another package
    ],
)
def test_only_the_non_test_files_of_one_package_count(path: str, other: str) -> None:
    text = INTERFACES.replace("package react", "package react_test")
    text = text if other == "react_test.go" else INTERFACES
    assert drop_redeclared(path, STUB, REPLY, {other: (text, text)}) == (REPLY, [])


def test_a_test_file_of_the_same_package_keeps_what_it_declares() -> None:
    tests = 'package react\n\nimport "testing"\n\ntype InputCell interface{ Value() int }\n'
    new, notes = drop_redeclared("react.go", STUB, REPLY, {"react_test.go": (tests, tests)})
    assert "type InputCell interface" not in new and "type Reactor interface" in new
    assert notes[0].startswith("react.go: left out InputCell (react_test.go declares InputCell")


def test_a_reply_that_rewrites_the_other_file_too_leaves_it_what_it_declared_before() -> None:
    rewritten = INTERFACES.replace("\tSetValue(int)\n", "\tSetValue(int)\n\tReset()\n")
    new, notes = drop_redeclared(
        "react.go", STUB, REPLY, {"interfaces.go": (INTERFACES, rewritten)}
    )
    assert "type Reactor interface" not in new and notes[0].startswith("react.go: left out")
    # a name the other file only now declares is not its to keep; nor is a new file's
    for others in ({"interfaces.go": (STUB, INTERFACES)}, {"interfaces.go": (None, INTERFACES)}):
        assert drop_redeclared("react.go", STUB, REPLY, others) == (REPLY, [])


def copy_of(root: Path, files: dict[str, str]) -> WorkingCopy:
    for rel, body in files.items():
        (root / rel).write_text(body)

    def read(path: str) -> TextFile | None:
        target = confine(root, path)
        return read_text_file(target) if target.is_file() else None

    def inside(path: str) -> None:
        confine(root, path)

    return WorkingCopy(sorted(files), read, inside, shown=["react.go"])


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_the_reply_as_applied_builds_where_the_reply_as_sent_does_not(tmp_path: Path) -> None:
    files = {"go.mod": "module example.com/react\n\ngo 1.19\n", "interfaces.go": INTERFACES,
             "react.go": STUB}  # fmt: skip
    working = copy_of(tmp_path, files)
    env = {"GOFLAGS": "-mod=mod", "GOCACHE": str(tmp_path / ".cache"), "HOME": str(tmp_path),
           "PATH": os.environ["PATH"], "GO111MODULE": "on"}  # fmt: skip

    def vet() -> subprocess.CompletedProcess[str]:
        return subprocess.run(["go", "vet", "."], cwd=tmp_path, env=env, capture_output=True,
                              text=True, check=False)  # fmt: skip

    attempt = working.apply_reply(f"react.go\n```go\n{REPLY}```\n")
    (tmp_path / "react.go").write_text(REPLY)
    as_sent = vet()
    (tmp_path / "react.go").write_text(working.text("react.go") or "")
    as_applied = vet()

    assert "Reactor redeclared" in as_sent.stdout + as_sent.stderr
    assert as_applied.returncode == 0, as_applied.stdout + as_applied.stderr
    assert attempt.ok and any("interfaces.go declares Reactor" in n for n in attempt.notes)


def test_the_working_copy_reads_the_package_as_the_reply_leaves_it(tmp_path: Path) -> None:
    working = copy_of(tmp_path, {"interfaces.go": INTERFACES, "react.go": STUB})
    both = f"react.go\n```go\n{REPLY}```\n\ninterfaces.go\n```go\n{INTERFACES}// v2\n```\n"
    attempt = working.apply_reply(both)
    assert attempt.ok and "type Reactor interface" not in (working.text("react.go") or "")
    assert working.text("interfaces.go") == INTERFACES + "// v2\n"


def test_an_import_only_the_copies_used_goes_with_them() -> None:
    io_interfaces = 'package react\n\nimport "io"\n\ntype Reactor interface{ io.Closer }\n'
    reply = STUB.replace("package react\n", 'package react\n\nimport "io"\n') + (
        "\ntype Reactor interface{ io.Closer }\n"
    )
    new, notes = drop_redeclared("react.go", STUB, reply, {"interfaces.go": (io_interfaces,) * 2})
    assert '"io"' not in new and "type Reactor" not in new
    assert notes[1] == 'react.go: removed the import of "io" (only what was left out used it)'
