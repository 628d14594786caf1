"""A source file as the searches for a failed check's value read it (``value_origin``,
``variant_origin``): none past :data:`LARGEST` characters, and outside Python its block
comments blanked, their line breaks kept, so that line numbers stay true and a doc comment's
``Return 'Yes' …`` (HumanEvalFix Rust-119) is not taken for code."""

from __future__ import annotations

import re

MOST_LINES = 3  # a value written on more lines than this says nothing of where the bug is
LARGEST = 200_000  # characters: a file larger than this is not searched
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def searched_text(path: str, text: str | None) -> str | None:
    """``text`` as searched, or None when there is none or it is too large."""
    if text is None or len(text) > LARGEST:
        return None
    if path.endswith(".py"):
        return text
    return _BLOCK_COMMENT.sub(lambda m: "\n" * m[0].count("\n"), text)
