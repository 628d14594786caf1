"""Whole-file replies that silently drop code: the top-level definitions they lose, and
reading such a reply as the definitions it does contain.

A small model asked to send a whole file often sends back only the function it changed,
and the rest of the module — functions the task never mentioned — disappears with it.
When every other statement of the reply (imports, constants, the docstring) is already in
the file, the reply is read as "these definitions, changed": each replaces the same-named
definition of the file (new ones are appended) and the rest of the file stays. Otherwise
the reply is refused, naming what it drops; a deliberate removal is still possible with a
SEARCH/REPLACE block whose REPLACE is empty. A function of the reply that no top-level
definition of the file is named after, but exactly one method is, replaces that method
(indented as it was): asked for "the corrected function", a small model sends the method
alone, out of its class. A reply indented as a whole (a method copied with its class's
indentation) is read dedented. Text that does not parse (before or after) is left to the
syntax gate. Go, Rust, JavaScript and TypeScript files are read the same way by
``edits.brace_merge``.
"""

from __future__ import annotations

import ast
import io
import textwrap

from patchwright.edits import brace_merge
from patchwright.edits.brace_defs import family_of
from patchwright.edits.splice import spliced

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def readable(new: str) -> str:
    """``new`` as the parser can read it: dedented when only its common indentation stops it."""
    if _parse(new) is None:
        dedented = textwrap.dedent(new)
        if dedented != new and _parse(dedented) is not None:
            return dedented
    return new


def dropped_definitions(path: str, old: str, new: str) -> list[str]:
    """Top-level functions and classes of ``old`` that ``new`` no longer defines."""
    if family_of(path) is not None:
        return brace_merge.dropped(path, old, new)
    if not path.endswith((".py", ".pyi")):
        return []
    before, after = _parse(old), _parse(readable(new))
    if before is None or after is None:
        return []
    kept = {node.name for node in after.body if isinstance(node, DEFS)}
    return [n.name for n in before.body if isinstance(n, DEFS) and n.name not in kept]


def _lines(text: str) -> list[str]:
    return io.StringIO(text, newline="").readlines()


def _span(node: Definition) -> tuple[int, int]:
    """0-based first line (decorators included) and end line (exclusive) of a definition."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first - 1, node.end_lineno or node.lineno


def _methods(tree: ast.Module) -> dict[str, list[Definition]]:
    """The methods of the module's top-level classes, by name."""
    found: dict[str, list[Definition]] = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, []).append(node)
    return found


def _indented(lines: list[str], indent: str) -> list[str]:
    return [indent + x if x.strip() else x for x in lines]


def _places(before: ast.Module, old_lines: list[str]) -> dict[str, tuple[int, int, str]]:
    """Where a definition of the reply goes, by name: the top-level definition of that name,
    else the one method of that name (with its indentation)."""
    where: dict[str, tuple[int, int, str]] = {}
    for name, nodes in _methods(before).items():
        if len(nodes) == 1:
            start, stop = _span(nodes[0])
            line = old_lines[start]
            where[name] = (start, stop, line[: len(line) - len(line.lstrip())])
    for node in before.body:
        if isinstance(node, DEFS):
            where[node.name] = (*_span(node), "")
    return where


def replaceable(text: str, path: str = "") -> set[str] | None:
    """The names a block of definitions can replace in ``text`` (the file ``path``) — its
    top-level definitions and its lone methods (see ``merge_definitions``); None when it
    does not parse."""
    if family_of(path) is not None:
        return brace_merge.replaceable(path, text)
    tree = _parse(text)
    return None if tree is None else set(_places(tree, _lines(text)))


def merge_definitions(old: str, new: str, path: str = "") -> str | None:
    """``old`` with each top-level definition of ``new`` put in place of its namesake (a
    top-level one, else a lone method; new names appended), when all of ``new``'s other
    statements are already in ``old``; else None. ``path`` names the file's language
    (Python when it is not a brace language's)."""
    if family_of(path) is not None:
        return brace_merge.merge(path, old, new)
    new = readable(new)
    before, after = _parse(old), _parse(new)
    if before is None or after is None:
        return None
    # lines as the parser counts them (str.splitlines would also split at form feeds)
    old_lines, new_lines = _lines(old), _lines(new)
    others = [ast.get_source_segment(new, n) or "" for n in after.body if not isinstance(n, DEFS)]
    if any(segment.strip() not in old for segment in others):
        return None
    where = _places(before, old_lines)
    replacements: dict[int, tuple[int, list[str]]] = {}
    appended: list[str] = []
    for node in after.body:
        if not isinstance(node, DEFS):
            continue
        start, end = _span(node)
        text = new_lines[start:end]
        if node.name in where:
            at, stop, indent = where[node.name]
            replacements[at] = (stop, _indented(text, indent))
        else:
            appended += ["\n", "\n", *text]
    out = spliced(old_lines, replacements)
    merged = "".join(out)
    if appended:
        merged = merged.rstrip("\n") + "\n" + "".join(appended)
    return merged if merged.endswith("\n") else merged + "\n"
