"""Adapts the verify gates to the agent loop's ``Checker`` protocol and reports each gate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.events import EventBus
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateResult, run_gates, summarize_failures


@dataclass
class GateCheck:
    results: list[GateResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def summary(self) -> str:
        return summarize_failures(self.results)


@dataclass
class GateChecker:
    root: Path
    sandbox: Sandbox
    baseline: Baseline
    bus: EventBus
    test_cmd: str | None = None
    last: GateCheck = field(default_factory=GateCheck)

    def check(self, touched: Sequence[str]) -> GateCheck:
        results = run_gates(
            self.root, self.sandbox, self.baseline, touched=list(touched), test_cmd=self.test_cmd
        )
        for r in results:
            self.bus.emit(
                "gate.result",
                gate=r.name,
                status=r.status,
                new_problems=len(r.new_problems),
                fixed_problems=len(r.fixed_problems),
                seconds=round(r.seconds, 3),
                reason=r.reason,
            )
        self.last = GateCheck(results)
        return self.last
