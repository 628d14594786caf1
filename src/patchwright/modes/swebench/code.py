"""Python functions of a file as spans — what SBFL, localisation, the API guard and the
gold-function count all map lines to."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass


@dataclass(frozen=True)
class Span:
    """A function or method: ``name`` is its qualified name in the file (``Cls.meth``)."""

    name: str
    start: int
    end: int
    signature: str

    @property
    def public(self) -> bool:
        return not any(part.startswith("_") and not part.startswith("__")
                       for part in self.name.split("."))  # fmt: skip


def function_spans(text: str) -> list[Span]:
    """Every function and method of ``text`` (empty when it does not parse)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    spans: list[Span] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = prefix + child.name
                sig = f"{name}({ast.unparse(child.args)})"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                spans.append(Span(name, start, child.end_lineno or child.lineno, sig))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")

    visit(tree, "")
    return spans


def innermost(spans: list[Span], line: int) -> Span | None:
    """The innermost function holding ``line``."""
    holding = [s for s in spans if s.start <= line <= s.end]
    return min(holding, key=lambda s: s.end - s.start) if holding else None


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")
_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)$")


def changed_lines(patch: str) -> dict[str, set[int]]:
    """Old-file line numbers each file's hunks change (an insertion counts the line it
    follows), by path."""
    lines: dict[str, set[int]] = {}
    path, old = "", 0
    for row in patch.splitlines():
        if m := _FILE.match(row):
            path = m.group(1)
            lines.setdefault(path, set())
        elif m := _HUNK.match(row):
            old = int(m.group(1))
        elif path and row.startswith("-") and not row.startswith("---"):
            lines[path].add(old)
            old += 1
        elif path and row.startswith("+") and not row.startswith("+++"):
            lines[path].add(max(old - 1, 1))
        elif path and row.startswith(" "):
            old += 1
    return lines
