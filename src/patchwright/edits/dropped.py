"""Whole-file replies that silently drop code: the top-level definitions they lose.

A small model asked to send a whole file often sends back only the function it changed,
and the rest of the module — functions the task never mentioned — disappears with it.
Such a reply is refused before anything is written; a deliberate removal is still
possible with a SEARCH/REPLACE block whose REPLACE is empty. Python only; text that does
not parse (before or after) is left to the syntax gate.
"""

from __future__ import annotations

import ast


def _defined(text: str) -> list[str] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [node.name for node in tree.body if isinstance(node, kinds)]


def dropped_definitions(path: str, old: str, new: str) -> list[str]:
    """Top-level functions and classes of ``old`` that ``new`` no longer defines."""
    if not path.endswith((".py", ".pyi")):
        return []
    before, after = _defined(old), _defined(new)
    if before is None or after is None:
        return []
    kept = set(after)
    return [name for name in before if name not in kept]
