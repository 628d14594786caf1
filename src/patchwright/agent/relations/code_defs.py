"""What a source file defines, in each language patchwright knows by its tests: Python,
JavaScript and TypeScript, Go, Rust — so that a task naming ``Add`` points at ``calc.go`` as
one naming ``add`` points at ``calc.py``. Regular expressions over the text, as fast as a task
needs: functions, methods, classes and types, never local variables."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Literal

from patchwright.index.locate import is_test_path

Family = Literal["python", "javascript", "go", "rust"]

JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_FAMILIES: dict[str, Family] = {".py": "python", ".go": "go", ".rs": "rust"}
_FAMILIES.update(dict.fromkeys(JS_SUFFIXES, "javascript"))

_JS_KEYWORDS = frozenset("if for while switch catch function return with constructor".split())
_PATTERNS: dict[Family, tuple[re.Pattern[str], ...]] = {
    "python": (re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", re.M),),
    "javascript": (
        re.compile(
            r"^\s*(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?"
            r"(?:function\s*\*?|(?:abstract\s+)?class|interface|type|enum)\s+([A-Za-z_$][\w$]*)",
            re.M,
        ),
        re.compile(
            r"^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*"
            r"(?:async\s+)?(?:function\b|\([^)\n]*\)\s*(?::[^=\n]+)?=>|[A-Za-z_$][\w$]*\s*=>)",
            re.M,
        ),
        re.compile(r"^\s*(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=", re.M),
        re.compile(  # a method of a class or an object literal
            r"^[ \t]+(?:(?:public|private|protected|static|async|get|set|override)\s+)*"
            r"([A-Za-z_$][\w$]*)\s*\([^)\n]*\)\s*(?::[^{\n]+)?\{",
            re.M,
        ),
    ),
    "go": (
        re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", re.M),
        re.compile(r"^type\s+([A-Za-z_]\w*)", re.M),
    ),
    "rust": (
        re.compile(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"[^\"]*\")\s+)*"
            r"(?:fn|struct|enum|trait|union|type)\s+([A-Za-z_]\w*)",
            re.M,
        ),
    ),
}


def family_of(path: str) -> Family | None:
    """The language family of a file by its suffix (TypeScript counts as JavaScript)."""
    return _FAMILIES.get(PurePosixPath(path).suffix.lower())


def defined_names(path: str, text: str) -> set[str]:
    """The functions, methods, classes and types ``text`` (the file ``path``) defines."""
    family = family_of(path)
    if family is None:
        return set()
    names = {name for pattern in _PATTERNS[family] for name in pattern.findall(text)}
    return names - _JS_KEYWORDS if family == "javascript" else names


def definitions(texts: Mapping[str, str]) -> dict[str, set[str]]:
    """The repository's source files (not its tests) by the names they define."""
    defined: dict[str, set[str]] = {}
    for path, text in texts.items():
        if is_test_path(path):
            continue
        for name in defined_names(path, text):
            defined.setdefault(name, set()).add(path)
    return defined
