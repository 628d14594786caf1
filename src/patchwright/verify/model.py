"""The data the gates exchange: problems and gate results (the gate protocol and its context
are :mod:`patchwright.verify.context`).

A ``Problem`` is one finding (a syntax error, a lint or type error, a failing test). Its
``key`` leaves out the line number so that a finding that merely moved (lines inserted
above it) still matches its baseline twin; counts are compared as multisets, so a second
copy of an old problem is still new.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from patchwright.verify.testmodel import TestRun

Status = Literal["passed", "failed", "skipped", "could_not_run", "error"]
"""How a gate ended. ``skipped``: it does not apply here (the reason says why).
``could_not_run``: it applies but its tool could not start or crashed, so it has no verdict
(the reason carries the tool's own error). ``error``: the gate itself crashed (a patchwright
bug, the exception in the reason). Neither of the last two is ever a pass."""

NOT_RUN: frozenset[str] = frozenset({"could_not_run", "error"})


def status_label(status: str) -> str:
    """The status as users read it: ``could_not_run`` is shown as "could not run"."""
    return status.replace("_", " ")


@dataclass(frozen=True)
class Problem:
    """One finding of a gate. ``detail`` (assertion message, traceback tail) and ``hint``
    (the tool's own suggested fix: rustc's ``help:``) are not compared."""

    gate: str
    path: str
    line: int | None
    code: str | None
    message: str
    detail: str = ""
    hint: str = ""
    # the tool's own fix, safe to apply unseen (rustc's machine-applicable suggestions):
    # (first line, first column, last line, end column, new text), 1-based, end exclusive
    fix: tuple[tuple[int, int, int, int, str], ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple[str, str, str, str]:
        """Identity across edits: everything but the line number and the detail."""
        return (self.gate, self.path, self.code or "", self.message)

    def render(self) -> str:
        """``path:line: [code] message`` (a test: ``id (failed)``) — one line for tables and
        repair prompts. A problem of no file (a whole test run's) has no location part."""
        if self.gate == "tests" and self.code in ("failed", "error"):
            return f"{self.message} ({self.code})"
        code = f"[{self.code}] " if self.code else ""
        if not self.path:
            return f"{code}{self.message}"
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {code}{self.message}"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["fix"]
        return data


def diff_problems(
    before: Iterable[Problem], after: Iterable[Problem]
) -> tuple[list[Problem], list[Problem]]:
    """``(new, fixed)``: problems of ``after`` beyond the baseline's count of the same key,
    and baseline problems beyond ``after``'s count (those the change fixed)."""
    before, after = list(before), list(after)
    budget = Counter(p.key for p in before)
    new: list[Problem] = []
    for p in after:
        if budget[p.key] > 0:
            budget[p.key] -= 1
        else:
            new.append(p)
    remaining = Counter(p.key for p in after)
    fixed: list[Problem] = []
    for p in before:
        if remaining[p.key] > 0:
            remaining[p.key] -= 1
        else:
            fixed.append(p)
    return new, fixed


@dataclass
class GateResult:
    """What one gate found. ``ok`` is True only for ``passed`` and ``skipped``.

    ``reason`` says why a gate was skipped, could not run or errored (never a silent pass)
    and carries notes such as "baseline unknown for x.py" for a passed gate.
    """

    name: str
    status: Status
    new_problems: list[Problem] = field(default_factory=list)
    fixed_problems: list[Problem] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0
    reason: str | None = None
    test_run: TestRun | None = field(default=None, repr=False, compare=False)  # tests gate only

    @property
    def ok(self) -> bool:
        return self.status in ("passed", "skipped")

    @property
    def could_not_run(self) -> bool:
        """True when the gate applies but gave no verdict: its tool could not start or
        crashed (``could_not_run``), or the gate crashed (``error``)."""
        return self.status in NOT_RUN

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "ok": self.ok,
            "could_not_run": self.could_not_run,
            "new_problems": [p.to_dict() for p in self.new_problems],
            "fixed_problems": [p.to_dict() for p in self.fixed_problems],
            "output": self.output,
            "seconds": round(self.seconds, 3),
            "reason": self.reason,
        }
