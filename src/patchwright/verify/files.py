"""Reading the touched files and comparing their problems with the baseline's, per file."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from patchwright.verify.context import GateContext
from patchwright.verify.model import Problem, diff_problems
from patchwright.workspace.errors import WorkspaceError
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import read_text_file


def current_texts(ctx: GateContext, suffixes: Iterable[str] | None = None) -> dict[str, str]:
    """Touched files that exist now and are text, optionally only with these suffixes."""
    wanted = {s.lower() for s in suffixes} if suffixes is not None else None
    texts: dict[str, str] = {}
    for rel in dict.fromkeys(ctx.touched):
        if wanted is not None and PurePosixPath(rel).suffix.lower() not in wanted:
            continue
        try:
            path = confine(ctx.root, rel)
            if path.is_file():
                texts[rel] = read_text_file(path).text
        except (OSError, WorkspaceError):
            continue  # binary, undecodable or outside the root: not ours to check
    return texts


@dataclass
class Comparison:
    """New and fixed problems over several files, plus notes for the gate's reason."""

    new: list[Problem] = field(default_factory=list)
    fixed: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, before: list[Problem], after: list[Problem]) -> None:
        new, fixed = diff_problems(before, after)
        self.new.extend(new)
        self.fixed.extend(fixed)

    @property
    def reason(self) -> str | None:
        return "; ".join(self.notes) if self.notes else None


def old_problems(
    ctx: GateContext,
    gate: str,
    path: str,
    current: str,
    now: list[Problem],
    check: Callable[[str, str], list[Problem]],
    notes: list[str],
) -> list[Problem]:
    """The baseline's problems of ``path`` for ``gate`` (a memo label), computed on the old
    text (``check(path, old_text)``) and memoized in the baseline. Unchanged text: the
    current problems are the old ones."""
    base = ctx.baseline
    if not base.knows(path):
        notes.append(f"no baseline for {path} (not kept), its problems count as new")
        return []
    old = base.old_text(path)
    if old is None:
        return []
    if old == current:
        return now
    memo_key = (gate, path)
    if memo_key not in base.memo:
        base.memo[memo_key] = check(path, old)
    return base.memo[memo_key]
