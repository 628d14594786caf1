"""Edits that name no file are placed only where there is exactly one right answer."""

from __future__ import annotations

from patchwright.edits import apply_edits, parse_reply

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


def test_a_search_block_found_nowhere_goes_to_the_one_file_shown_to_edit() -> None:
    """HumanEvalFix JavaScript-1 with SEARCH/REPLACE: "The file path for this change is
    `main.js`." then a block whose SEARCH was the model's own earlier version; twice told
    only that the block names no file, never that its SEARCH text is not in main.js."""
    stale = PATHLESS_SR.replace("balance", "total")
    parsed = parse_reply(stale, known_files=KNOWN, shown=SHOWN, editable=["solution.py"])
    assert [(e.path, e.kind) for e in parsed.edits] == [("solution.py", "replace")]
    assert parsed.notes == [
        "edit block 1 named no file; applied to solution.py, the one file shown to edit"
    ]
    two = parse_reply(stale, known_files=KNOWN, shown=SHOWN, editable=["a.py", "solution.py"])
    assert two.edits == [] and "names no file" in two.errors[0]


def test_a_bare_code_block_redefining_the_whole_file_replaces_it() -> None:
    fixed = SOLUTION.replace("balance == 0", "balance < 0")
    parsed = parse_reply(f"Here it is:\n```python\n{fixed}```\n", known_files=KNOWN, shown=SHOWN)
    (edit,) = parsed.edits
    assert (edit.path, edit.kind, edit.replace) == ("solution.py", "whole", fixed)
    assert apply_edits(parsed.edits, {"solution.py": SOLUTION}).new_texts == {"solution.py": fixed}


def test_a_snippet_is_never_taken_for_a_whole_file() -> None:
    two_blocks = "```python\nx = 1\n```\n" + f"```python\n{SOLUTION}```\n"
    assert parse_reply(two_blocks, known_files=KNOWN, shown=SHOWN).edits == []
    unknown = "```python\ndef above_zero(operations):\n    return True\n```\n"
    assert parse_reply(unknown, known_files=KNOWN, shown=SHOWN).edits == []


def test_a_bare_corrected_function_changes_that_function_and_keeps_the_rest() -> None:
    function = "def below_zero(operations: List[int]) -> bool:\n    return False\n"
    parsed = parse_reply(f"```python\n{function}```\n", known_files=KNOWN, shown=SHOWN)
    (edit,) = parsed.edits
    assert (edit.path, edit.fmt, parsed.errors) == ("solution.py", "definitions", [])
    new = apply_edits(parsed.edits, {"solution.py": SOLUTION}).new_texts["solution.py"]
    assert new == "from typing import List\n\n\n" + function


def test_a_corrected_function_with_a_new_helper_changes_it_and_appends_the_helper() -> None:
    block = (
        "def below_zero(operations: List[int]) -> bool:\n    return _dips(operations)\n\n\n"
        "def _dips(operations: List[int]) -> bool:\n    return min(operations, default=0) < 0\n"
    )
    parsed = parse_reply(f"```python\n{block}```\n", known_files=KNOWN, shown=SHOWN)
    new = apply_edits(parsed.edits, {"solution.py": SOLUTION}).new_texts["solution.py"] or ""
    assert "return _dips(operations)" in new and new.endswith("< 0\n")
    go = "package main\n\nfunc Count(s string) int {\n\treturn len(s)\n}\n"
    reply = "```go\nfunc Count(s string) int {\n\treturn len(lower(s))\n}\n\nfunc lower(s string) string {\n\treturn s\n}\n```\n"
    parsed = parse_reply(reply, shown={"main.go": go})
    merged = apply_edits(parsed.edits, {"main.go": go}).new_texts["main.go"] or ""
    assert "len(lower(s))" in merged and merged.endswith(
        "func lower(s string) string {\n\treturn s\n}\n"
    )


ITEMS = """from dataclasses import dataclass


@dataclass
class Item:
    price: float
    quantity: int

    def value(self) -> float:
        return self.price + self.quantity

    def label(self) -> str:
        return f"x{self.quantity}"


def total(items: list[Item]) -> float:
    return sum(item.value() for item in items)
"""


def test_a_method_sent_alone_replaces_the_method_inside_its_class() -> None:
    for block in (
        "def value(self) -> float:\n    return self.price * self.quantity\n",
        "    def value(self) -> float:\n        return self.price * self.quantity\n",
    ):
        shown = {"shop/items.py": ITEMS}
        parsed = parse_reply(f"Fixed:\n```python\n{block}```\n", known_files=[], shown=shown)
        outcome = apply_edits(parsed.edits, shown)
        assert outcome.new_texts == {"shop/items.py": ITEMS.replace(" + ", " * ")}, block


def test_the_original_then_the_fix_in_two_blocks_keeps_the_fix() -> None:
    wrong = (
        "def total(items: list[Item]) -> float:\n    return sum(item.value() for item in items)\n"
    )
    fixed = "def total(items: list[Item]) -> float:\n    return round(sum(i.value() for i in items), 2)\n"
    reply = f"The wrong line:\n```python\n{wrong}```\nThe fix:\n```python\n{fixed}```\n"
    parsed = parse_reply(reply, known_files=[], shown={"shop/items.py": ITEMS})
    outcome = apply_edits(parsed.edits, {"shop/items.py": ITEMS})
    assert outcome.new_texts["shop/items.py"].endswith(fixed)


def test_a_definition_two_files_have_is_not_placed() -> None:
    shown = {"a/items.py": ITEMS, "b/items.py": ITEMS}
    block = "```python\ndef total(items):\n    return 0\n```\n"
    assert parse_reply(block, known_files=[], shown=shown).edits == []


def test_without_shown_files_nothing_is_inferred() -> None:
    parsed = parse_reply(PATHLESS_SR, known_files=KNOWN)
    assert parsed.edits == [] and parsed.errors


def test_a_shell_block_of_advice_does_not_stop_a_bare_whole_file_being_placed() -> None:
    fixed = SOLUTION.replace("balance == 0", "balance < 0")
    reply = (
        f"Here is the updated code:\n\n```python\n{fixed}```\n\n"
        "To verify, run the tests:\n\n```sh\npython -m pytest -q tests\n```\n"
    )
    (edit,) = parse_reply(reply, known_files=KNOWN, shown=SHOWN).edits
    assert (edit.path, edit.kind, edit.replace) == ("solution.py", "whole", fixed)


def test_a_shell_block_is_code_when_a_shown_file_is_a_script() -> None:
    shown = {**SHOWN, "run.sh": "#!/bin/sh\necho hi\n"}
    reply = f"```python\n{SOLUTION}```\n\n```sh\npython -m pytest -q\n```\n"
    assert parse_reply(reply, known_files=sorted(shown), shown=shown).edits == []
