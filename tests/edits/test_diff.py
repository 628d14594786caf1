"""The one unified diff: what people read, what the model is shown, what ``git apply`` takes.
A last line without a newline is marked, so the diff applies to exactly the new text."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from patchwright.edits import file_diff, unified_diff
from patchwright.edits.diff import NO_NEWLINE


def git_apply(root: Path, files: dict[str, str], diff: str) -> dict[str, str | None]:
    """``files`` written to a fresh repository, ``diff`` applied with ``git apply``; the
    files after (None: deleted)."""
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for path, text in files.items():
        (root / path).write_text(text)
    subprocess.run(["git", "apply", "-"], cwd=root, input=diff, text=True, check=True)
    names = {*files, *(p.name for p in root.iterdir() if p.name != ".git")}
    return {n: (root / n).read_text() if (root / n).exists() else None for n in sorted(names)}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\nb", "a\nc"),  # no newline on either side
        ("a\nb", "a\nb\n"),  # the newline added
        ("a\nb\n", "a\nb"),  # the newline taken away
        ("a\nb\n", "a\nc\n"),  # newlines throughout: no marker
    ],
    ids=["neither", "added", "removed", "both"],
)
def test_the_diff_applies_to_exactly_the_new_text(tmp_path: Path, old: str, new: str) -> None:
    diff = file_diff("f.txt", old, new)
    assert (NO_NEWLINE in diff) == (not old.endswith("\n") or not new.endswith("\n"))
    assert all(line.endswith("\n") for line in diff.splitlines(keepends=True))
    assert git_apply(tmp_path / "repo", {"f.txt": old}, diff) == {"f.txt": new}


def test_the_marker_follows_the_line_that_lacks_the_newline() -> None:
    diff = file_diff("f.txt", "a\nb", "a\nc\n")
    assert diff.endswith("-b\n" + NO_NEWLINE + "+c\n")


def test_a_created_and_a_deleted_file_name_dev_null(tmp_path: Path) -> None:
    diff = unified_diff([("new.txt", None, "hello\n"), ("old.txt", "bye\n", None)])
    assert "--- /dev/null\n+++ b/new.txt\n" in diff
    assert "--- a/old.txt\n+++ /dev/null\n" in diff
    assert git_apply(tmp_path / "repo", {"old.txt": "bye\n"}, diff) == {
        "new.txt": "hello\n",
        "old.txt": None,
    }


def test_an_unchanged_file_has_no_diff_and_context_is_the_callers() -> None:
    assert file_diff("f.txt", "same\n", "same\n") == ""
    old = "".join(f"line {i}\n" for i in range(10))
    new = old.replace("line 5\n", "line five\n")
    one = file_diff("f.txt", old, new, context=1)
    assert " line 4\n-line 5\n+line five\n line 6\n" in one and "line 3" not in one
    assert "line 2" in file_diff("f.txt", old, new)  # three lines by default
