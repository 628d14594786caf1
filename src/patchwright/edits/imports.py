"""Python import preservation: put back imports an edit removed but the code still uses.

Models rewriting the top of a file often drop an import line while the rest of the
module keeps using the name. When the old text imported a name at module level, the
new text no longer binds it anywhere, and the new code reads it, the original import
statement is restored after the last remaining top-level import (PyOB's behaviour).
Files that do not parse (before or after) are left alone.
"""

from __future__ import annotations

import ast
import re


def _stmt(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    name = alias.name + (f" as {alias.asname}" if alias.asname else "")
    if isinstance(node, ast.Import):
        return f"import {name}"
    return f"from {'.' * node.level}{node.module or ''} import {name}"


def _bound_name(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    if alias.asname:
        return alias.asname
    return alias.name.split(".")[0] if isinstance(node, ast.Import) else alias.name


def _top_imports(tree: ast.Module) -> dict[str, tuple[ast.Import | ast.ImportFrom, ast.alias]]:
    out: dict[str, tuple[ast.Import | ast.ImportFrom, ast.alias]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            for alias in node.names:
                if alias.name != "*":
                    out[_bound_name(node, alias)] = (node, alias)
    return out


def _bound_anywhere(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update(_bound_name(node, a) for a in node.names)
    return names


def _used(tree: ast.Module) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _insert_at(tree: ast.Module) -> int:
    """0-based line index after which restored imports go (-1 = top of file)."""
    last = -1
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Import | ast.ImportFrom) or (
            i == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            last = (node.end_lineno or node.lineno) - 1
    return last


_IMPORTISH = re.compile(r"^\s*(?:from\s|import\s)|^\s+[\w.]+(?:\s+as\s+\w+)?\s*,?\s*\)?\s*$")


def _may_remove_imports(old: str, new: str) -> bool:
    """Cheap filter: did the edit remove any line that could be (part of) an import?"""
    removed = set(old.split("\n")) - set(new.split("\n"))
    return any(_IMPORTISH.match(line) for line in removed)


def restore_imports(old: str, new: str) -> tuple[str, list[str]]:
    """Return ``new`` with still-used removed imports restored, and the statements restored."""
    if not _may_remove_imports(old, new):
        return new, []
    try:
        old_tree, new_tree = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError):
        return new, []
    bound = _bound_anywhere(new_tree)
    used = _used(new_tree)
    restored: list[str] = []
    for name, (node, alias) in _top_imports(old_tree).items():
        if name in used and name not in bound:
            stmt = _stmt(node, alias)
            if stmt not in restored:
                restored.append(stmt)
    if not restored:
        return new, []
    lines = new.split("\n")
    at = _insert_at(new_tree) + 1
    lines[at:at] = restored
    return "\n".join(lines), restored
