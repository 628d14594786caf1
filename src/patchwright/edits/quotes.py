"""Typographic quotes in added Python code: straightened when they break the syntax.

Models (and chat front ends) sometimes turn ``"`` and ``'`` into curly quotes. In a
Python file that parsed before the edit and does not parse after it, curly quotes
and dashes on the lines the edit added are replaced by their ASCII forms when that
makes the file parse again. Nothing else is touched; strings that legitimately hold
typographic characters keep them, since the file then parses as written.
"""

from __future__ import annotations

import ast

from patchwright.edits.normalize import ascii_punctuation, has_fancy_punctuation


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def straighten_added_quotes(old: str, new: str) -> tuple[str, int]:
    """Return ``new`` with added lines' curly quotes straightened when needed, and how many."""
    before = set(old.split("\n"))
    lines = new.split("\n")
    added = [i for i, x in enumerate(lines) if x not in before and has_fancy_punctuation(x)]
    if not added or _parses(new) or not _parses(old):
        return new, 0
    for i in added:
        lines[i] = ascii_punctuation(lines[i])
    fixed = "\n".join(lines)
    return (fixed, len(added)) if _parses(fixed) else (new, 0)
