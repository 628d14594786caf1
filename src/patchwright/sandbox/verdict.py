"""``Verdict``: how dangerous a command is, and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Level = Literal["safe", "ask", "forbidden"]
_RANK = {"safe": 0, "ask": 1, "forbidden": 2}


@dataclass(frozen=True)
class Verdict:
    """``level`` (safe / ask / forbidden), the ``rule`` that decided it, and the reason."""

    level: Level
    rule: str | None = None
    reason: str = ""

    @property
    def allowed(self) -> bool:
        """False only for ``forbidden`` (``ask`` needs approval, but may run)."""
        return self.level != "forbidden"


SAFE = Verdict("safe", None, "no rule matched")


def forbid(rule: str, reason: str) -> Verdict:
    return Verdict("forbidden", rule, reason)


def ask(rule: str, reason: str) -> Verdict:
    return Verdict("ask", rule, reason)


def worst(verdicts: Sequence[Verdict]) -> Verdict:
    """The most severe verdict (the first one of that severity)."""
    best = SAFE
    for verdict in verdicts:
        if _RANK[verdict.level] > _RANK[best.level]:
            best = verdict
    return best
