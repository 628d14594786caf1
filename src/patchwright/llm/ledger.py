"""What a run's model calls cost: one record per successful call, and the run's sums."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from patchwright.llm.types import Usage


@dataclass
class CallRecord:
    """Accounting of one successful call (keys appear by label only)."""

    model: str
    key: str
    usage: Usage
    cost: float
    seconds: float
    estimated_cost: float
    estimated_tokens: int
    temperature: float | None = None  # what was sent; None: the provider's own sampling
    seed: int | None = None  # a sampled call's seed, as sent


@dataclass
class Totals:
    """Per-run sums. ``attempts`` counts every request sent, failed ones included."""

    calls: int = 0
    attempts: int = 0
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    seconds: float = 0.0

    @property
    def tokens(self) -> int:
        return self.usage.total_tokens

    def __add__(self, other: Totals) -> Totals:
        return Totals(self.calls + other.calls, self.attempts + other.attempts,
                      self.usage + other.usage, self.cost + other.cost,
                      self.seconds + other.seconds)  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "attempts": self.attempts,
            **self.usage.to_dict(),
            "cost": round(self.cost, 6),
            "seconds": round(self.seconds, 3),
        }
