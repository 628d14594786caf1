"""A Python file's definitions, for pointing at code: its functions and classes, their line
spans, the innermost function around a line, a definition's source, whether it is a stub."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Sequence

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
Function = ast.FunctionDef | ast.AsyncFunctionDef


def definitions(text: str) -> list[ast.AST]:
    """Every function and class of ``text``, nested ones too (empty when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [n for n in ast.walk(tree) if isinstance(n, (*FUNCTIONS, ast.ClassDef))]


def functions(text: str) -> list[Function]:
    """Every function and method of ``text`` (empty when it does not parse)."""
    return [n for n in definitions(text) if isinstance(n, FUNCTIONS)]


def span(node: ast.AST) -> tuple[int, int]:
    """A definition's first line (its decorators included) and last line, 1-based."""
    decorators = getattr(node, "decorator_list", [])
    start = min([getattr(node, "lineno", 1), *(d.lineno for d in decorators)])
    return start, getattr(node, "end_lineno", None) or start


def innermost(candidates: Sequence[Function], line: int) -> Function | None:
    """The shortest of ``candidates`` whose span holds ``line``."""
    around = [f for f in candidates if span(f)[0] <= line <= span(f)[1]]
    return min(around, key=lambda f: span(f)[1] - span(f)[0]) if around else None


def source(text: str, node: ast.AST) -> str:
    """A definition's source, decorators included, dedented."""
    first, last = span(node)
    return textwrap.dedent("\n".join(text.splitlines()[first - 1 : last]))


def is_stub(node: Function) -> bool:
    """Whether the function is not written yet: its body (past a docstring) is only ``pass``,
    ``...`` or ``raise NotImplementedError`` — an exercise to implement, not a bug to find."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring (or a bare constant such as ...)
        if not body:
            return True
    return all(_placeholder(stmt) for stmt in body)


def _placeholder(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return stmt.value.value is Ellipsis
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"
    return False
