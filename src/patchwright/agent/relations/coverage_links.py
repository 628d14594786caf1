"""Failing tests linked to a change by what they run: a baseline-failing test that executed a
function the change touches is one of the change's targets, whatever its traceback shows.

The lines each failing test ran come from one coverage run at baseline (``testcover``), of
the failing tests that nothing else ties to the task. They are kept as *spans* of the baseline
text: the whole of every function whose body the test ran (decorators to last line), and the
single lines it ran outside functions — its own, and those its files ran at import. A change
reaches a test when a line it changes (in baseline numbering) falls in one of its spans.
(:func:`patchwright.agent.criterion.link_by_coverage` runs the coverage and keeps the spans
in the criterion.)
"""

from __future__ import annotations

import ast
import difflib
import warnings
from collections.abc import Collection, Mapping
from pathlib import Path

from patchwright.verify import Baseline
from patchwright.verify.testcover import Lines

Span = tuple[int, int]  # first and last line, baseline numbering
Spans = Mapping[str, tuple[Span, ...]]  # path -> spans


def covered_spans(ran: Lines, shared: Lines, texts: Mapping[str, str]) -> Spans:
    """The spans of the Python files a test ran (see the module docstring)."""
    out: dict[str, tuple[Span, ...]] = {}
    for path, executed in ran.items():
        text = texts.get(path)
        if text is None or not path.endswith(".py"):
            continue
        functions = _functions(text)
        spans: set[Span] = set()
        for line in executed | shared.get(path, frozenset()):
            holder = _innermost(functions, line)
            if holder is not None:
                spans.add((holder[0], holder[2]))
            elif not any(start <= line <= end for start, _, end in functions):
                spans.add((line, line))  # module or class level, not a def header
        if spans:
            out[path] = tuple(sorted(spans))
    return out


def _functions(text: str) -> list[tuple[int, int, int]]:
    """(first line with decorators, first body line, last line) of every function."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [
        (
            min([node.lineno, *(d.lineno for d in node.decorator_list)]),
            node.body[0].lineno,
            node.end_lineno or node.lineno,
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _innermost(functions: list[tuple[int, int, int]], line: int) -> tuple[int, int, int] | None:
    """The innermost function whose body holds ``line`` (a header line runs at import)."""
    holding = [f for f in functions if f[1] <= line <= f[2]]
    return min(holding, key=lambda f: f[2] - f[0]) if holding else None


def reaches(
    spans: Spans, touched: Collection[str], changed: Mapping[str, Collection[int]] | None
) -> bool:
    """True when the change touches a span: a changed line in one, or — where the changed
    lines are not known — a touched file that has one."""
    for path in touched:
        if path not in spans:
            continue
        if changed is None or path not in changed:
            return True
        if any(start <= line <= end for line in changed[path] for start, end in spans[path]):
            return True
    return False


def changed_lines(old: str, new: str | None) -> frozenset[int]:
    """The lines of ``old`` that ``new`` changes (all of them when it is deleted). An inserted
    block counts the line above it when it is indented: it went into that line's block."""
    before = old.splitlines()
    if new is None:
        return frozenset(range(1, len(before) + 1))
    after = new.splitlines()
    lines: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lines.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            added = [x for x in after[j1:j2] if x.strip()]
            if i1 > 0 and added and added[0][:1].isspace():
                lines.add(i1)
    return frozenset(lines)


def changed_in(
    baseline: Baseline, root: Path, touched: Collection[str]
) -> dict[str, frozenset[int]]:
    """For each touched file known at baseline, the baseline lines the change on disk changes."""
    out: dict[str, frozenset[int]] = {}
    for path in touched:
        old = baseline.old_text(path)
        if old is None:
            continue
        file = root / path
        try:
            new = file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None
        except OSError:
            continue
        out[path] = changed_lines(old, new)
    return out
