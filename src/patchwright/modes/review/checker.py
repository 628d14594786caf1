"""The review loop's checker: the run's gates, widened to the files that depend on the change,
then the runtime smoke run.

A change to a function's signature can break a caller that the change never touched. So the
syntax, lint and type gates run on the touched files *and* on the files that use a
definition of theirs (their baseline is the same check with the old text of the changed files,
so only errors the change causes count), the tests gate runs the suite, and — when the gates
pass — the project's import contracts are checked where it keeps them (:mod:`.contracts`)
and the program's entry point runs for a few seconds and must not crash in a new way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from patchwright.agent.checker import Check, GateChecker, gate_event
from patchwright.agent.criterion import Verdict
from patchwright.agent.prompts import render
from patchwright.events import ReviewDependents, ReviewProgress
from patchwright.modes.review.contracts import Contracts
from patchwright.verify import GateContext, GateResult, SmokeGate

MAX_DEPENDENTS = 40  # a change to a name used everywhere checks its first 40 users


@dataclass
class ReviewChecker:
    gates: GateChecker
    dependents_of: Callable[[Sequence[str]], list[str]]
    smoke_seconds: float | None = None
    target: str = ""
    findings: list[str] = field(default_factory=list)  # progress is required when given
    contracts: Contracts | None = None  # the project's import contracts, where it keeps them

    def check(self, touched: Sequence[str]) -> Check:
        extra = [p for p in self.dependents_of(touched) if p not in touched][:MAX_DEPENDENTS]
        if extra:
            self.gates.bus.emit(ReviewDependents(touched=list(touched), paths=extra))
        check = self.gates.check([*touched, *extra])
        if check.gates_ok and self.contracts is not None:
            check.results.append(self.contracts.gate())
            self.gates.bus.emit(gate_event(check.results[-1]))
        if check.gates_ok and self.smoke_seconds:
            check.results.append(self._smoke(touched))
        if check.gates_ok and self.findings:
            check.verdict = self._progress(check)
        return check

    def formatted(self, texts: Mapping[str, str | None]) -> dict[str, str]:
        return self.gates.formatted(texts)

    def _progress(self, check: Check) -> Verdict:
        fixed = [p.render() for r in check.results for p in r.fixed_problems]
        self.gates.bus.emit(ReviewProgress(met=bool(fixed), fixed=fixed[:20]))
        if fixed:
            return Verdict(True)
        report = render("review_progress", path=self.target, findings=self.findings[:10])
        return Verdict(False, list(self.findings[:10]), report)

    def _smoke(self, touched: Sequence[str]) -> GateResult:
        g = self.gates
        ctx = GateContext(root=g.root, sandbox=g.sandbox, baseline=g.baseline,
                          touched=list(touched), smoke_seconds=self.smoke_seconds)  # fmt: skip
        result = SmokeGate().run(ctx)
        g.bus.emit(gate_event(result))
        return result
