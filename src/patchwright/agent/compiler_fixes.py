"""A compile error whose fix the compiler states, and calls safe, is fixed without a model.

rustc attaches a suggestion to many errors and marks some *machine-applicable*: the ones
``cargo fix`` applies unseen (``consider dereferencing the borrow: *even[i]``, ``consider
changing this to be mutable: let mut v``, ``consider borrowing here: &s``). A small model
told the error and the suggested line still sends another attempt, and each costs a reply
and a check (HumanEvalFix Rust-33 and Rust-37: three of their repairs were such errors, in
which the tests never ran). When every new problem of every failed gate carries such a fix,
the fixes are applied to the change and it is checked again, noted for the model as the
gofmt layout is; anything else is left to the model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from patchwright.agent.checker import Check
from patchwright.agent.solve_types import Changes, Txn
from patchwright.verify import GateResult
from patchwright.verify.model import Problem

if TYPE_CHECKING:
    from patchwright.agent.working_copy import WorkingCopy

Replacement = tuple[int, int, int, int, str]


def fixable(results: Sequence[GateResult], paths: Sequence[str]) -> list[Problem] | None:
    """The new problems of the failed gates when each has a fix in one of ``paths`` (and a
    gate that failed has some), else None."""
    failed = [r for r in results if not r.ok]
    problems = [p for r in failed for p in r.new_problems]
    if not failed or any(not r.new_problems for r in failed):
        return None
    if any(not p.fix or p.path not in paths for p in problems):
        return None
    return problems


def patched(text: str, replacements: Sequence[Replacement]) -> str | None:
    """``text`` with ``replacements`` made (1-based lines and columns, end exclusive); None
    when two of them overlap or one falls outside the text."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int | None:
        if not 0 < line <= len(lines) or not 0 < column <= len(lines[line - 1]) + 1:
            return None
        return starts[line - 1] + column - 1

    spans: list[tuple[int, int, str]] = []
    for first, col, last, end_col, new in replacements:
        start, stop = offset(first, col), offset(last, end_col)
        if start is None or stop is None or stop < start:
            return None
        spans.append((start, stop, new))
    spans.sort()
    if any(a[1] > b[0] for a, b in pairwise(spans)):
        return None
    for start, stop, new in reversed(spans):
        text = text[:start] + new + text[stop:]
    return text


def apply_fixes(working: WorkingCopy, problems: Sequence[Problem]) -> list[str]:
    """Make ``problems``' fixes in the working copy, file by file; a note for each problem
    fixed (none when a file's fixes could not all be made: that file is left as it was)."""
    notes: list[str] = []
    for path in sorted({p.path for p in problems}):
        mine = [p for p in problems if p.path == path]
        text = working.text(path)
        new = (
            None if text is None else patched(text, [r for p in mine for r in dict.fromkeys(p.fix)])
        )
        if new is None or new == text:
            continue
        working.write(path, new)
        for p in mine:
            said = f" ({p.hint.removeprefix('help: ')})" if p.hint else ""
            notes.append(f"{p.path}:{p.line}: fixed [{p.code}] {p.message} as the compiler "
                         f"suggests{said}")  # fmt: skip
    return notes


def fix_and_recheck(
    working: WorkingCopy, check: Check, recheck: Callable[[Changes], Check], rounds: int = 2
) -> tuple[Check, list[str]]:
    """``check`` of the working copy's change, or, where the compiler's fixes mend what it
    failed for, the check of the change with them (``recheck``: writes and checks a change);
    and the notes of the fixes made. More than one round: rustc reports borrow errors only
    once the types are right."""
    notes: list[str] = []
    for _ in range(rounds):
        problems = fixable(check.results, working.changed_paths())
        said = apply_fixes(working, problems) if problems else []
        if not said:
            break
        notes += said
        check = recheck(working.changes())
    return check, notes


def rechecker(txn: Txn, check: Callable[[list[str]], Check]) -> Callable[[Changes], Check]:
    """A ``recheck`` for :func:`fix_and_recheck` that writes the change in ``txn`` first."""

    def recheck(changes: Changes) -> Check:
        txn.stage(changes)
        txn.write()
        return check(sorted(changes))

    return recheck
