"""A lint or type finding convicts the function around its line, with every finding of the
same kind inside it."""

from __future__ import annotations

from tests.agent.test_suspects import ITEMS

from patchwright.modes.review.findings import Finding
from patchwright.modes.review.focus import find_flagged


def test_lint_and_type_findings_convict_the_functions_around_their_lines() -> None:
    found = [Finding("shop/items.py", 17, "types", "return-value", "got int"),
             Finding("shop/items.py", 13, "lint", "E711", "== None"),
             Finding("shop/items.py", 13, "types", "operator", "bad operand"),
             Finding("shop/items.py", 8, "types", "misc", "outside any function")]  # fmt: skip

    suspects = find_flagged(found, "types", ITEMS)

    assert [(s.name, len(s.flagged)) for s in suspects] == [("value", 1), ("ratio", 1)]
    assert suspects[0].flagged == ("shop/items.py:13: [types operator] bad operand",)
