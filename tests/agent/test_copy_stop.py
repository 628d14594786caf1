"""A whole-file reply ends where, its edits written, it starts copying a read-only file."""

from __future__ import annotations

import re

import pytest

from patchwright.agent.copy_stop import CopyStop
from patchwright.llm import ReplyComplete

FIX = "calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n\n"
COPY = "test_calc.py\n```python\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n```\n"


def stream(stop: CopyStop, text: str) -> str:
    """Feed ``text`` piece by piece, as a backend does; what was said before the stop."""
    said = ""
    for piece in re.findall(r"\s*\S+|\s+", text):
        said += piece
        try:
            stop(piece)
        except ReplyComplete:
            break
    return said


@pytest.mark.parametrize("header", ["test_calc.py\n", "**test_calc.py**\n", "### `test_calc.py`\n"])
def test_the_copy_of_a_read_only_file_after_the_fix_ends_the_reply(header: str) -> None:
    seen: list[str] = []
    stop = CopyStop(["test_calc.py"], seen.append)
    said = stream(stop, FIX + COPY.replace("test_calc.py\n", header, 1))
    assert stop.trimmed(said) == FIX.rstrip() + "\n"
    assert "".join(seen) == said and "def test_add" not in said  # stopped at its fence


def test_a_reply_that_begins_with_a_read_only_file_ends_at_its_fence_and_names_it() -> None:
    stop = CopyStop(["calc_test.py", "test_calc.py"])
    said = stream(stop, "The tests first.\n\n" + COPY + FIX)
    assert "from calc import" not in said and stop.refused == "test_calc.py"
    assert stop.trimmed(said) == "The tests first.\n"
    assert CopyStop(["test_calc.py"]).refused is None


def test_a_read_only_file_named_in_prose_or_with_no_read_only_files_changes_nothing() -> None:
    prose = FIX + "test_calc.py\nnow passes: `add` adds.\n"
    assert stream(CopyStop(["test_calc.py"]), prose) == prose
    assert stream(CopyStop([]), FIX + COPY) == FIX + COPY


def test_a_reply_that_goes_on_to_copy_the_prompt_ends_where_the_copy_begins() -> None:
    """Polyglot Rust gigasecond: its edits written, the reply copied "The files you may edit:"
    and the files again until its token limit."""
    stop = CopyStop([])
    said = stream(stop, FIX + "The files you may edit:\n\n" + FIX * 5)
    assert stop.trimmed(said) == FIX.rstrip() + "\n"
    quoted = "notes.md\n```markdown\nThe files you may edit:\n- calc.py\n```\n"
    inside = CopyStop([])
    assert stream(inside, FIX + quoted) == FIX + quoted and inside.cut is None  # in a file
    first = CopyStop([])
    assert stream(first, "The files you may edit:\n\n" + FIX) and first.cut is None  # no edit yet
