"""Tree-sitter grammars, loaded offline — shared by the index (symbols) and the syntax gate.

``tree-sitter-language-pack`` 1.x no longer carries its grammars: it downloads them from
GitHub on first use, which fails offline. We therefore use a grammar from the pack only when
it is already in the pack's local cache, and otherwise the per-language grammar wheels
published by the tree-sitter project (``tree-sitter-python``, ``tree-sitter-go``, ...), which
ship compiled grammars. A language with neither is reported unavailable with a reason (Python
files still get symbols from the standard library's ``ast``, JavaScript still gets
``node --check`` in the lint gate).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any

# file extension -> language name
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".php": "php",
    ".sh": "bash",
    ".bash": "bash",
}

# language -> (module of the per-language wheel, function returning the grammar pointer)
_WHEELS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
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
    "bash": ("tree_sitter_bash", "language"),
}

# language -> name in tree-sitter-language-pack
_PACK_NAMES: dict[str, str] = {"csharp": "csharp"}


@dataclass(frozen=True)
class GrammarStatus:
    """Whether a language can be parsed with tree-sitter here, and from where or why not."""

    language: str
    available: bool
    source: str  # "language-pack", "wheel:<module>" or the reason it is unavailable


def language_for_path(path: str) -> str | None:
    """The language of ``path`` by its extension, or None when we do not index it."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())


def _from_pack(language: str) -> Any | None:
    """The grammar from tree-sitter-language-pack when already cached locally (no download)."""
    try:
        pack = importlib.import_module("tree_sitter_language_pack")
        name = _PACK_NAMES.get(language, language)
        if name not in set(pack.downloaded_languages()):
            return None
        return pack.get_language(name)
    except Exception:  # the pack is optional; any failure means "not from here"
        return None


def _from_wheel(language: str) -> tuple[Any | None, str]:
    module_name, func_name = _WHEELS[language]
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None, f"grammar package {module_name.replace('_', '-')} is not installed"
    func: Callable[[], object] = getattr(module, func_name)
    from tree_sitter import Language

    return Language(func()), f"wheel:{module_name}"


@cache
def load(language: str) -> tuple[Any | None, GrammarStatus]:
    """Return ``(tree_sitter.Language | None, status)`` for ``language``, cached per process."""
    if language not in _WHEELS:
        return None, GrammarStatus(language, False, "language not supported")
    grammar = _from_pack(language)
    if grammar is not None:
        return grammar, GrammarStatus(language, True, "language-pack")
    try:
        grammar, source = _from_wheel(language)
    except Exception as exc:  # incompatible ABI and the like
        return None, GrammarStatus(language, False, f"grammar failed to load: {exc}")
    return grammar, GrammarStatus(language, grammar is not None, source)


@cache
def parser_for(language: str) -> Any | None:
    """A ``tree_sitter.Parser`` for ``language`` or None when its grammar is unavailable
    (:func:`load` says why)."""
    grammar, _ = load(language)
    if grammar is None:
        return None
    from tree_sitter import Parser

    return Parser(grammar)


def statuses() -> list[GrammarStatus]:
    """Availability of every supported language, for ``patchwright index`` to report."""
    return [load(lang)[1] for lang in sorted(_WHEELS)]
