"""Syntax errors of other languages from tree-sitter's ERROR and MISSING nodes, offline.

``tree-sitter-language-pack`` 1.x downloads its grammars on first use, which fails offline,
so a grammar is used only when it is already in the pack's local cache or when the
per-language wheel (``tree-sitter-javascript``, ...) is installed. Otherwise the language
is reported unavailable (the caller says so in the gate's reason, and JavaScript still gets
``node --check`` in the lint gate).
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from patchwright.verify.model import Problem

EXTENSIONS: dict[str, str] = {
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cc": "cpp",
    ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php",
}  # fmt: skip

_WHEELS: dict[str, tuple[str, str]] = {
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
}
_MAX_REPORTED = 5


def language_of(path: str) -> str | None:
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


@cache
def parser_for(language: str) -> tuple[Any | None, str]:
    """``(tree_sitter.Parser | None, why-not)`` for ``language``; never touches the network."""
    try:
        pack = importlib.import_module("tree_sitter_language_pack")
        if language in set(pack.downloaded_languages()):
            return pack.get_parser(language), ""
    except Exception:  # the pack is optional here; any failure means "not from the pack"
        pass
    module_name, func_name = _WHEELS[language]
    try:
        module = importlib.import_module(module_name)
        from tree_sitter import Language, Parser

        return Parser(Language(getattr(module, func_name)())), ""
    except ImportError:
        return None, (
            f"no {language} grammar offline (tree-sitter-language-pack has not cached it and "
            f"{module_name.replace('_', '-')} is not installed)"
        )
    except Exception as exc:  # an ABI mismatch and the like
        return None, f"the {language} grammar failed to load: {exc}"


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
