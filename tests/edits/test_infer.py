"""Edits that name no file are placed only where there is exactly one right answer."""

from __future__ import annotations

from patchwright.edits import parse_reply

SOLUTION = """from typing import List


def below_zero(operations: List[int]) -> bool:
    balance = 0
    for op in operations:
        balance += op
        if balance == 0:
            return True
    return False
"""
TEST = "from solution import below_zero\n\n\ndef test_it():\n    assert below_zero([1, -2])\n"
SHOWN = {"solution.py": SOLUTION, "tests/test_example.py": TEST}
KNOWN = sorted(SHOWN)

PATHLESS_SR = """```python
<<<<<<< SEARCH
        if balance == 0:
=======
        if balance < 0:
>>>>>>> REPLACE
```
"""


def test_a_search_block_without_a_path_goes_to_the_one_file_containing_it() -> None:
    parsed = parse_reply(PATHLESS_SR, known_files=KNOWN, shown=SHOWN)
    assert [(e.path, e.kind) for e in parsed.edits] == [("solution.py", "replace")]
    assert parsed.errors == []
    assert "solution.py" in parsed.notes[0]


def test_a_search_block_found_in_two_files_is_an_error_not_a_guess() -> None:
    shown = {"a.py": SOLUTION, "b.py": SOLUTION}
    parsed = parse_reply(PATHLESS_SR, known_files=sorted(shown), shown=shown)
    assert parsed.edits == []
    assert "names no file" in parsed.errors[0]


def test_a_bare_code_block_redefining_the_whole_file_replaces_it() -> None:
    fixed = SOLUTION.replace("balance == 0", "balance < 0")
    parsed = parse_reply(f"Here it is:\n```python\n{fixed}```\n", known_files=KNOWN, shown=SHOWN)
    (edit,) = parsed.edits
    assert (edit.path, edit.kind, edit.replace) == ("solution.py", "whole", fixed)
    assert "solution.py" in parsed.notes[0]


def test_a_snippet_is_never_taken_for_a_whole_file() -> None:
    snippet = "```python\ndef below_zero(operations):\n    return any(operations)\n```\n"
    parsed = parse_reply(snippet, known_files=KNOWN, shown=SHOWN)  # drops the import
    assert parsed.edits == []
    two_blocks = "```python\nx = 1\n```\n" + f"```python\n{SOLUTION}```\n"
    assert parse_reply(two_blocks, known_files=KNOWN, shown=SHOWN).edits == []


def test_without_shown_files_nothing_is_inferred() -> None:
    parsed = parse_reply(PATHLESS_SR, known_files=KNOWN)
    assert parsed.edits == [] and parsed.errors
