"""Syntax errors of other languages from tree-sitter's ERROR and MISSING nodes, offline.

``tree-sitter-language-pack`` 1.x downloads its grammars on first use, which fails offline,
so grammars come from :mod:`patchwright.grammars` (the pack's local cache or the
per-language wheels). An unavailable language is reported with the reason (the caller says
so in the gate's reason, and JavaScript still gets ``node --check`` in the lint gate).
"""

from __future__ import annotations

from typing import Any

from patchwright import grammars
from patchwright.verify.model import Problem

_MAX_REPORTED = 5
# Python has its own checker (``ast``) and shell scripts ``bash -n``.
_OWN_CHECKERS = frozenset({"python", "bash"})


def language_of(path: str) -> str | None:
    """The tree-sitter language that checks ``path``, or None."""
    language = grammars.language_for_path(path)
    return None if language in _OWN_CHECKERS else language


def parser_for(language: str) -> tuple[Any | None, str]:
    """``(tree_sitter.Parser | None, why-not)`` for ``language``; never touches the network."""
    parser = grammars.parser_for(language)
    if parser is not None:
        return parser, ""
    _, status = grammars.load(language)
    return None, f"no {language} grammar offline: {status.source}"


def _error_nodes(root: Any) -> list[Any]:
    found: list[Any] = []
    stack = [root]
    while stack and len(found) < _MAX_REPORTED:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            found.append(node)
            continue
        if node.has_error:
            stack.extend(reversed(node.children))
    return found


def tree_sitter_problems(path: str, text: str, parser: Any) -> list[Problem]:
    """One problem per ERROR/MISSING node (at most five), with 1-based line numbers."""
    tree = parser.parse(text.encode("utf-8"))
    if not tree.root_node.has_error:
        return []
    problems = []
    for node in _error_nodes(tree.root_node):
        row, col = node.start_point
        if node.is_missing:
            message = f"missing {node.type!r}"
        else:
            snippet = text.encode("utf-8")[node.start_byte : node.end_byte][:40].decode(
                "utf-8", "replace"
            )
            message = f"syntax error near {snippet.splitlines()[0] if snippet else 'end'!r}"
        problems.append(Problem("syntax", path, row + 1, "syntax", message, f"column {col + 1}"))
    return problems
