"""Which code files a failing test points at: its traceback's files, else the definitions its
body names — of those, the ones its module imports, so that a method it calls on a path or
a process does not point at every file defining one of that name."""

from __future__ import annotations

from patchwright.index.model import Definition, FileSymbols
from patchwright.modes.review.links import failing_test_links, imported_names
from patchwright.verify import TestRun
from patchwright.verify.testmodel import TestCase

TEST = """import subprocess
from pathlib import Path

from tools.diff import file_diff


def test_the_diff_applies(tmp_path: Path) -> None:
    diff = file_diff("f.txt", "a", "b")
    subprocess.run(["git", "apply", "-"], input=diff, text=True, check=True)
    assert (tmp_path / "f.txt").read_text() == "b"
"""


def _symbols(path: str, *names: str) -> FileSymbols:
    return FileSymbols(path, "python", [Definition(n, "function", path, 1, 2, f"def {n}()")
                                        for n in names])  # fmt: skip


def test_a_test_failing_in_its_own_assertion_points_at_what_its_module_imports() -> None:
    case = TestCase("tests/test_diff.py::test_the_diff_applies", "failed", "tests/test_diff.py",
                    message="AssertionError")  # fmt: skip
    run = TestRun("pytest", 1, "", {case.id: case}, per_test=True)
    symbols = {"tools/diff.py": _symbols("tools/diff.py", "file_diff"),
               "tools/proc.py": _symbols("tools/proc.py", "run"),
               "tools/files.py": _symbols("tools/files.py", "read_text")}  # fmt: skip
    texts = {"tests/test_diff.py": TEST}

    links = failing_test_links(run, sorted(symbols), symbols, texts)

    assert links == {case.id: {"tools/diff.py"}}  # not proc.py's run nor files.py's read_text
    assert imported_names(TEST) == {"subprocess", "Path", "file_diff"}
