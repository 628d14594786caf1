"""Python-specific symbols from the standard library's ``ast``.

Adds what tree-sitter cannot know by itself: module-qualified names
(``pkg.mod.Class.method``) and imports. When the tree-sitter grammar for Python is missing
this module also supplies definitions and references, so Python repositories are always
indexed; when ``ast`` cannot parse a file (Python 2, syntax errors) tree-sitter's result stands.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import PurePosixPath

from patchwright.index.model import MAX_REF_LINES, Definition, FileSymbols

_SOURCE_ROOTS = ("src", "lib", "python")


def module_name(path: str) -> str:
    """Dotted module name for a repository-relative ``.py`` path (``src/a/b.py`` → ``a.b``)."""
    parts = list(PurePosixPath(path).with_suffix("").parts)
    if len(parts) > 1 and parts[0] in _SOURCE_ROOTS:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


_FuncDef = ast.FunctionDef | ast.AsyncFunctionDef


def _signature(node: _FuncDef | ast.ClassDef) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases + [k.value for k in node.keywords])
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


class _Collector(ast.NodeVisitor):
    """Definitions, imports and (unless ``statements_only``) references of a module.

    With ``statements_only`` only statement bodies are walked, never expressions: enough
    for qualified names and imports, and several times faster, for when tree-sitter has
    already supplied the references."""

    def __init__(self, path: str, *, statements_only: bool = False) -> None:
        self.statements_only = statements_only
        self.path = path
        self.scope: list[tuple[str, bool]] = []  # (name, is_class)
        self.definitions: list[Definition] = []
        self.imports: list[str] = []
        self.references: dict[str, list[int]] = {}

    def _define(self, node: _FuncDef | ast.ClassDef) -> None:
        is_class = isinstance(node, ast.ClassDef)
        in_class = bool(self.scope) and self.scope[-1][1]
        kind = "class" if is_class else ("method" if in_class else "function")
        qual = ".".join([*(s[0] for s in self.scope), node.name])
        self.definitions.append(
            Definition(
                name=node.name,
                kind=kind,
                path=self.path,
                line=node.lineno,
                end_line=node.end_lineno or node.lineno,
                signature=_signature(node)[:240],
                qualname=qual,
            )
        )
        if not self.statements_only:
            for decorator in node.decorator_list:
                self.visit(decorator)
        self.scope.append((node.name, is_class))
        for child in node.body:
            self.visit(child)
        self.scope.pop()
        if self.statements_only:
            return
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                self.visit(base)
        else:
            self.visit(node.args)
            if node.returns:
                self.visit(node.returns)

    def generic_visit(self, node: ast.AST) -> None:
        if not self.statements_only:
            super().generic_visit(node)
            return
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, name, ()) or ():
                if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                    self.visit(child)

    visit_FunctionDef = _define
    visit_AsyncFunctionDef = _define
    visit_ClassDef = _define

    def _ref(self, name: str, line: int) -> None:
        lines = self.references.setdefault(name, [])
        if len(lines) < MAX_REF_LINES:
            lines.append(line)

    def visit_Module(self, node: ast.Module) -> None:
        for child in node.body:
            self.visit(child)

    def visit_Name(self, node: ast.Name) -> None:
        self._ref(node.id, node.lineno)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._ref(node.attr, node.end_lineno or node.lineno)
        self.visit(node.value)

    def visit_Import(self, node: ast.Import) -> None:
        self.imports.extend(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = "." * node.level + (node.module or "")
        for alias in node.names:
            self.imports.append(f"{base}.{alias.name}" if base else alias.name)
            if not self.statements_only:
                self._ref(alias.name, node.lineno)


def enrich(symbols: FileSymbols, source: bytes) -> FileSymbols:
    """Add module-qualified names and imports; fill in symbols when tree-sitter had none."""
    try:
        tree = ast.parse(source, filename=symbols.path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return symbols
    fallback = symbols.error is not None or not (symbols.definitions or symbols.references)
    collector = _Collector(symbols.path, statements_only=not fallback)
    collector.visit(tree)
    module = module_name(symbols.path)
    by_key = {(d.name, d.line): d for d in collector.definitions}
    qualify = (lambda q: f"{module}.{q}") if module else (lambda q: q)
    if fallback:
        definitions = [replace(d, qualname=qualify(d.qualname)) for d in collector.definitions]
        references = collector.references
    else:
        definitions = []
        for d in symbols.definitions:
            found = by_key.get((d.name, d.line))
            if found is None:
                definitions.append(d)
            else:
                definitions.append(replace(d, kind=found.kind, qualname=qualify(found.qualname)))
        references = symbols.references
    return FileSymbols(
        symbols.path, "python", definitions, references, collector.imports, error=None
    )
