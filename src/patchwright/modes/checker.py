"""Adapts the verify gates to the agent loop's ``Checker`` protocol and reports each gate.

The gates fail only on *new* problems. A task about failing tests also needs those tests to
pass: the tests that fail at baseline and that the task names (by file or by test name) are
the run's targets, and a change that leaves one of them failing is not a solution.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.events import EventBus
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateResult, run_gates, summarize_failures


def target_tests(baseline: Baseline, task: str) -> set[str]:
    """Baseline-failing tests whose file or name the task mentions."""
    if baseline.tests is None:
        return set()
    targets: set[str] = set()
    for test_id in baseline.failing_tests:
        case = baseline.tests.cases.get(test_id)
        path = case.path if case else ""
        name = test_id.split("::")[-1].split("[")[0]
        named_file = bool(path) and (path in task or Path(path).name in task)
        if named_file or re.search(rf"\b{re.escape(name)}\b", task):
            targets.add(test_id)
    return targets


@dataclass
class GateCheck:
    results: list[GateResult] = field(default_factory=list)
    still_failing: list[str] = field(default_factory=list)
    still_failing_detail: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results) and not self.still_failing

    @property
    def summary(self) -> str:
        parts = [summarize_failures(self.results)] if not all(r.ok for r in self.results) else []
        if self.still_failing:
            parts.append(
                "These tests named in the task still fail:\n"
                + "\n".join(f"- {t}" for t in self.still_failing)
                + (f"\n{self.still_failing_detail}" if self.still_failing_detail else "")
            )
        return "\n\n".join(p for p in parts if p.strip())


@dataclass
class GateChecker:
    root: Path
    sandbox: Sandbox
    baseline: Baseline
    bus: EventBus
    test_cmd: str | None = None
    targets: set[str] = field(default_factory=set)
    test_timeout: float = 180.0
    last: GateCheck = field(default_factory=GateCheck)

    def check(self, touched: Sequence[str]) -> GateCheck:
        results = run_gates(
            self.root,
            self.sandbox,
            self.baseline,
            touched=list(touched),
            test_cmd=self.test_cmd,
            test_timeout=self.test_timeout,
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
        tests = next((r for r in results if r.name == "tests"), None)
        if self.targets and tests is not None and tests.status == "passed":
            fixed = {p.message for p in tests.fixed_problems}
            self.last.still_failing = sorted(self.targets - fixed)
            self.last.still_failing_detail = self._detail(self.last.still_failing)
        return self.last

    def _detail(self, ids: list[str]) -> str:
        cases = self.baseline.tests.cases if self.baseline.tests else {}
        lines = []
        for test_id in ids[:5]:
            case = cases.get(test_id)
            if case and case.message:
                lines.append(f"{test_id}: {case.message[:400]}")
        return "\n".join(lines)
