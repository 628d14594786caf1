"""The gates and the definition of done, run on a written change: the loop's ``Checker``.

The gates fail only on *new* problems (regressions). When they pass, the criterion judges
whether the task is done, reading the same test run the tests gate made (the suite runs once
per check) and running the ``--done-when`` commands. A gate that could not run (its tool is
missing, could not start or crashed) is no fault of the change: the strategies stop the run
on it (:class:`GatesCouldNotRun`) instead of asking the model to repair it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwright import events as ev
from patchwright.agent.criterion import Criterion, Verdict, evaluate
from patchwright.agent.relations.coverage_links import changed_in
from patchwright.events import CriterionResult, EventBus
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateResult, run_gates, summarize_failures
from patchwright.verify.fixers import gofmt_formatted
from patchwright.verify.tools import tail, which

if TYPE_CHECKING:
    from patchwright.agent.working_copy import WorkingCopy


class GatesCouldNotRun(Exception):
    """A change could not be verified because a gate could not run; the message says which
    gate, the tool's error and what to do. Raised to stop a run with the repository restored."""

    def __init__(self, check: Check) -> None:
        self.check = check
        names = [r.name for r in check.not_run]
        parts = [f"the {r.name} gate could not run ({(r.reason or r.output[-300:]).strip()})"
                 for r in check.not_run]  # fmt: skip
        fix = "fix or install the tool, or its configuration in the repository"
        if "tests" in names:
            fix += "; for the tests, pass a --test-cmd that runs here"
        super().__init__(
            "; ".join(parts) + f" — not the change's fault, so no repair was asked: {fix}, "
            "then run again"
        )


def gate_event(result: GateResult) -> ev.GateResult:
    """The ``gate.result`` event of one gate's verdict."""
    return ev.GateResult(
        gate=result.name,
        status=result.status,
        new_problems=len(result.new_problems),
        fixed_problems=len(result.fixed_problems),
        seconds=round(result.seconds, 3),
        reason=result.reason,
    )


@dataclass
class Check:
    """The gates' results and, when they passed, the criterion's verdict (None: no check
    applied to this change, so it can only be unverified)."""

    results: list[GateResult] = field(default_factory=list)
    verdict: Verdict | None = None
    # the repository's test run was broken before the change (timed out, no report): its
    # still being broken is the change's to fix (or the task's), not a tool to install
    suite_broken_before: bool = False

    @property
    def gates_ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def not_run(self) -> list[GateResult]:
        """Gates that apply but could not run: no verdict on the change either way. A test
        run broken before the change and still broken is left out: the change failed to
        mend it, which the model is told (the task may be to mend it), never a pass."""
        return [
            r
            for r in self.results
            if r.could_not_run and not (r.name == "tests" and self.suite_broken_before)
        ]

    def require_verdicts(self) -> None:
        """Raise :class:`GatesCouldNotRun` when a gate could not run."""
        if self.not_run:
            raise GatesCouldNotRun(self)

    @property
    def ok(self) -> bool:
        """Worth keeping: no regression, and the criterion met where one applies."""
        return self.gates_ok and (self.verdict is None or self.verdict.met)

    @property
    def solved(self) -> bool:
        """Kept *and* proved: a criterion applied, was met, and did not already hold before
        the change (a check that passed before any change proves nothing)."""
        return self.ok and self.verdict is not None and self.verdict.proved

    @property
    def summary(self) -> str:
        parts = [] if self.gates_ok else [summarize_failures(self.results)]
        if self.verdict is not None and not self.verdict.met:
            parts.append(self.verdict.report)
        return "\n\n".join(p for p in parts if p.strip())

    @property
    def gate_statuses(self) -> dict[str, str]:
        return {r.name: r.status for r in self.results}

    def unproved_note(self) -> str | None:
        """Says what an unproved change was checked by, so unverified never overclaims."""
        if self.solved or not self.ok:
            return None
        ran = ", ".join(r.name for r in self.results if r.status == "passed") or "no"
        if self.verdict is not None:
            return (
                "unverified: the task's check already held before any change, so passing it "
                f"proves nothing; the change passed {ran} gate(s) only — review it, or pass a "
                "--test-cmd / --done-when that fails until the task is done"
            )
        tests = next((r for r in self.results if r.name == "tests"), None)
        why = f" ({tests.reason})" if tests is not None and tests.reason else ""
        return (
            f"unverified: no check could prove the task done{why}; the change passed "
            f"{ran} gate(s) only — review it, or pass --test-cmd / "
            "--done-when to say what done means"
        )


@dataclass
class GateChecker:
    root: Path
    sandbox: Sandbox
    baseline: Baseline
    bus: EventBus
    criterion: Criterion
    test_cmd: str | None = None
    test_timeout: float = 180.0
    command_timeout: float = 300.0
    last: Check = field(default_factory=Check)
    _gofmt_before: dict[str, bool] = field(default_factory=dict)

    def check(self, touched: Sequence[str]) -> Check:
        results = run_gates(
            self.root,
            self.sandbox,
            self.baseline,
            touched=list(touched),
            test_cmd=self.test_cmd,
            test_timeout=self.test_timeout,
        )
        for r in results:
            self.bus.emit(gate_event(r))
        before = self.baseline.tests
        check = Check(results, suite_broken_before=before is not None and bool(before.problem))
        if check.gates_ok:
            tests = next((r for r in results if r.name == "tests"), None)
            run = tests.test_run if tests is not None else None
            changed = changed_in(self.baseline, self.root, touched)
            check.verdict = evaluate(
                self.criterion, run, touched, self.run_command, changed, before
            )
            if check.verdict is not None:
                self.bus.emit(CriterionResult(**check.verdict.to_json()))
        self.last = check
        return check

    def formatted(self, texts: Mapping[str, str | None]) -> dict[str, str]:
        """The changed Go files as gofmt writes them, where that differs — a file gofmt left
        as it was before the change, or a new one: the lint gate would refuse the change for
        what gofmt does in an instant (polyglot Go bowling: two of four replies were refused
        as "not formatted as gofmt formats it" and their tests never ran). A file the user
        keeps in a layout of their own stays in it."""
        gofmt = which("gofmt")
        out: dict[str, str] = {}
        for path, text in texts.items():
            if gofmt is None or text is None or not path.endswith(".go"):
                continue
            if not self._laid_out_before(gofmt, path):
                continue
            new = gofmt_formatted(self.root, self.sandbox, gofmt, text)
            if new is not None and new != text:
                out[path] = new
        return out

    def _laid_out_before(self, gofmt: str, path: str) -> bool:
        """Whether ``path`` was new or as gofmt writes it before the change (asked once)."""
        if path not in self._gofmt_before:
            old = self.baseline.old_text(path)
            self._gofmt_before[path] = self.baseline.knows(path) and (
                old is None or gofmt_formatted(self.root, self.sandbox, gofmt, old) == old
            )
        return self._gofmt_before[path]

    def run_command(self, cmd: str) -> tuple[int | None, str]:
        """A ``--done-when`` command in the sandbox: (exit code, output)."""
        result = self.sandbox.run(cmd, cwd=self.root, timeout=self.command_timeout)
        output = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
        if result.timed_out:
            return None, f"timed out after {self.command_timeout:.0f}s\n{tail(output)}"
        return result.exit_code, output


def lay_out(
    working: WorkingCopy, formatted: Callable[[Mapping[str, str | None]], dict[str, str]]
) -> list[str]:
    """Write the formatter's layout of the working copy's changed files into it
    (``GateChecker.formatted``); the paths it changed."""
    laid_out = formatted({p: working.text(p) for p in working.changed_paths()})
    for path, text in laid_out.items():
        working.write(path, text)
    return sorted(laid_out)
