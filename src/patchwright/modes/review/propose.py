"""One proposal for one target: the prompt, the solve loop with its gates and checkpoint, and
what became of it.

The model reviews the target (bugs), proposes one feature, or updates a file a changed
definition ripples into (cascade). Its reply is applied in memory, written as one
transaction, checked by the gates (widened to dependent files, then the smoke run) and —
for a file that failing tests run through — by those tests; a failure goes back to the model
with the goal, the rationale and what failed, at most ``heal`` times, and is then rolled
back. A verified proposal waits at the checkpoint. Test files are read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from rich.console import Console

from patchwright.agent.checker import GateChecker
from patchwright.agent.context import approx_tokens
from patchwright.agent.criterion import Criterion
from patchwright.agent.keeping import Keeper
from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.prompts import render
from patchwright.agent.record import RunRecord
from patchwright.agent.relations.related_tests import is_test_path
from patchwright.agent.relations.suspects import Suspect, pick
from patchwright.agent.request import TaskRequest
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import Approver, Decision, Person, StrategyResult, Wired
from patchwright.agent.task.prepare import Groundwork
from patchwright.agent.task.repo import TaskRepo
from patchwright.agent.tools.bench import CommandApprover, refuse_commands
from patchwright.agent.working_copy import WorkingCopy
from patchwright.llm import OnToken
from patchwright.modes.review.checker import ReviewChecker
from patchwright.modes.review.checkpoint import (
    CheckpointDesk,
    CheckpointOptions,
    Proposal,
    make_checkpoint,
)
from patchwright.modes.review.contracts import Contracts
from patchwright.modes.review.focus import Focus
from patchwright.modes.review.formats import edit_format
from patchwright.modes.review.memory import Recall
from patchwright.modes.review.solver import NothingToPropose, ReviewSolver
from patchwright.modes.review.targeting import Target
from patchwright.verify import Baseline, TestRun
from patchwright.workspace.transaction import Transaction

Kind = Literal["bug", "feature", "cascade", "lint"]  # lint: tool fixes, no model
Status = Literal["accepted", "rejected", "skipped", "clean", "failed"]
_LANGS = {".py": "python", ".js": "javascript", ".ts": "typescript", ".sh": "bash"}


@dataclass
class ProposalOutcome:
    status: Status
    kind: Kind
    target: str
    rationale: str = ""
    files: list[str] = field(default_factory=list)
    diff: str = ""
    errors: str = ""
    fixed: list[str] = field(default_factory=list)
    reason: str = ""
    attempts: int = 0
    commit: str | None = None
    test_run: TestRun | None = field(default=None, repr=False)  # of the kept change's check
    about: str = ""  # what it was about (formats.KINDS): its target's most serious finding
    edit_format: str = ""  # the format the model was asked for ("" for a tool fix)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "kind": self.kind, "target": self.target,
                "rationale": self.rationale, "files": self.files, "commit": self.commit,
                "fixed": self.fixed, "errors": self.errors[:2000], "reason": self.reason,
                "attempts": self.attempts, "about": self.about,
                "edit_format": self.edit_format}  # fmt: skip


@dataclass(frozen=True)
class Tuning:
    heal: int = 2  # repairs after a proposal fails the gates
    regenerate: int = 2  # replies that do not parse or apply, answered and asked again
    smoke_seconds: float | None = 5.0
    test_timeout: float | None = None  # None: [run] test_timeout
    edit_format: str | None = None  # None: [run] edit_format
    edit_formats: Mapping[str, str] = field(default_factory=dict)  # --edit-format-for KIND=FMT


@dataclass
class TargetContext:
    """What the loop knows around a target, for its prompt and its definition of done."""

    texts: Mapping[str, str]
    focus: Focus = field(default_factory=Focus)  # its findings, as the prompts show them
    project: str = ""
    recall: Recall = field(default_factory=lambda: Recall("", ""))
    outline: str = ""
    notes: str = ""
    note_sources: list[str] = field(default_factory=list)


def _goal(kind: Kind, target: Target, ctx: TargetContext) -> str:
    if kind == "cascade" and target.cascade is not None:
        changed = "; ".join(target.cascade.ripples[:3])
        return f"Update {target.path} for the change in {target.cascade.trigger}: {changed}"
    if kind == "feature":
        return f"Add one small user-facing improvement to {target.path} without breaking anything"
    listed = "; ".join(ctx.focus.findings[:3])
    return f"Fix the defects in {target.path}" + (f" ({listed})" if listed else "")


def _suspect_goal(path: str, suspect: Suspect) -> str:
    """The goal of a one-function proposal: that function, and only what convicts it (the
    file's other findings in the goal sent the model to other functions)."""
    if suspect.test_id:
        said = suspect.says.splitlines()[0].removeprefix("E").strip() if suspect.says else ""
        return f"Fix the function `{suspect.name}` in {path} so that {suspect.test_id} passes" + (
            f" (now: {said})" if said else ""
        )
    return f"Fix the function `{suspect.name}` in {path}: " + "; ".join(suspect.flagged[:3])


def _done(kind: Kind, path: str, ctx: TargetContext) -> str:
    if kind == "bug" and ctx.focus.findings:
        return f"at least one of the problems found in {path} is fixed, and nothing else breaks"
    return ""


def _reply_tokens(fmt: str, text: str) -> int:
    """Whole-file replies need room for the file; edit blocks far less."""
    return max(1024, min(3072, approx_tokens(text) * 3 // 2 + 384)) if fmt == "whole" else 1024


class CheckpointPerson:
    """The review's checkpoint as the person a task asks: a verified proposal waits there,
    its pending file written first; a command is not run (the review's pipeline runs none)."""

    def __init__(self, proposer: Proposer, proposal: Proposal) -> None:
        self.proposer, self.proposal = proposer, proposal

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver:
        proposer, proposal = self.proposer, self.proposal
        checkpoint = make_checkpoint(proposer.console, proposer.desk, proposer.checkpoint,
                                     proposal, root=root, paths=paths,
                                     interactive=proposer.interactive)  # fmt: skip

        def approve(diff: str, problems: str = "") -> Decision:
            proposer.on_pending(proposal, diff)
            return checkpoint(diff, problems)

        return approve

    def command_approver(self) -> CommandApprover:
        return refuse_commands


@dataclass
class Proposer:
    session: Session
    repo: TaskRepo
    request: TaskRequest  # the review's: edit format, test timeout, tries per proposal
    console: Console
    desk: CheckpointDesk
    checkpoint: CheckpointOptions
    tuning: Tuning
    dependents_of: Callable[[Sequence[str]], list[str]]
    on_pending: Callable[[Proposal, str], None] = lambda proposal, diff: None
    interactive: bool | None = None
    on_token: OnToken | None = None
    contracts: Contracts | None = None  # the project's import contracts (the loop's bootstrap)
    tried: dict[str, list[str]] = field(default_factory=dict)  # suspects that failed, by file
    record: RunRecord | None = None  # the review's: each proposal's record nests in it
    before_task: Callable[[], None] = lambda: None  # a proposal's task starts a fresh ledger

    def propose(
        self, target: Target, kind: Kind, ctx: TargetContext, baseline: Baseline
    ) -> ProposalOutcome:
        """The proposal as one task through :func:`solve`, with this review's plan."""
        text = ctx.texts.get(target.path, "")
        about = ctx.focus.about if kind == "bug" else kind
        tried = self.tried.setdefault(target.path, [])
        suspect = pick(ctx.focus.suspects, tried) if kind == "bug" else None
        fmt = edit_format(self.request.edit_format, about, small=self.session.model.info.small,
                          lines=text.count("\n"), overrides=self.tuning.edit_formats,
                          suspect=suspect is not None)  # fmt: skip
        plan = ProposalTask(self, target, kind, ctx, baseline, fmt, suspect)
        git = replace(self.request.git, branch=False, commit=False)  # the loop commits it
        request = replace(self.request, task=plan.goal, git=git)
        self.before_task()
        result = solve(self.session, request, person=CheckpointPerson(self, plan.proposal),
                       on_token=self.on_token, plan=plan, parent=self.record)  # fmt: skip
        if result.stop is not None:
            raise result.stop  # a stop, a cap, gates that could not run: the review ends
        outcome = plan.outcome()
        outcome.about, outcome.edit_format = about, fmt
        if suspect is not None and fmt == "function" and outcome.status != "accepted":
            tried.append(suspect.name)  # the next look at this file tries another suspect
        return outcome

    def checker(self, baseline: Baseline, target: str, findings: list[str]) -> ReviewChecker:
        """The review's gates over ``baseline``; with ``findings``, progress on one of them
        is required too."""
        return self.widen(self.gates(baseline), target, findings)

    def gates(self, baseline: Baseline) -> GateChecker:
        repo, session = self.repo, self.session
        return GateChecker(repo.root, session.sandbox, baseline, session.bus, Criterion(),
                           repo.test_cmd, self.request.limits.test_timeout,
                           session.command_timeout)  # fmt: skip

    def widen(self, gates: GateChecker, target: str, findings: list[str]) -> ReviewChecker:
        """The gates widened to dependent files, the smoke run and the contracts."""
        return ReviewChecker(gates, self.dependents_of, self.tuning.smoke_seconds, target,
                             findings, self.contracts)  # fmt: skip

    def keeper(self, proposal: Proposal, working: WorkingCopy) -> Keeper:
        """Keeps a verified change once the checkpoint says so (the pending file written)."""
        approve = CheckpointPerson(self, proposal).change_approver(
            self.repo.root, working.changed_paths
        )
        return Keeper(self.repo.root, approve, self.session.bus)

    def prompt(self, target: Target, kind: Kind, ctx: TargetContext, fmt: str, text: str,
                suspect: Suspect | None) -> str:  # fmt: skip
        cascade = target.cascade
        lang = _LANGS.get(PurePosixPath(target.path).suffix.lower(), "")
        if fmt == "function" and suspect is not None:
            return render("fix_function", path=target.path, lang=lang, task="",
                          text=text.rstrip("\n"), suspect=suspect)  # fmt: skip
        return render(
            {"bug": "review_bugs", "feature": "review_feature", "cascade": "review_cascade"}[kind],
            path=target.path, lang=lang, text=text.rstrip("\n"), fmt=fmt,
            findings=ctx.focus.shown[:15], failures=ctx.focus.failures, project=ctx.project,
            memory=ctx.recall.memory, history=ctx.recall.history, outline=ctx.outline,
            notes=ctx.notes, note_sources=ctx.note_sources, readonly=True, augment=[],
            trigger=cascade.trigger if cascade else "", ripples=cascade.ripples if cascade else [],
            diff=cascade.diff if cascade else "",
        )  # fmt: skip


@dataclass
class ProposalTask:
    """One proposal's plan for :func:`solve`: the review's groundwork (its baseline, kept
    between proposals; the other test files read-only) and its pipeline (the
    :class:`ReviewSolver` with the review's prompt and checker)."""

    proposer: Proposer
    target: Target
    kind: Kind
    ctx: TargetContext
    baseline: Baseline
    fmt: str
    suspect: Suspect | None
    solver: ReviewSolver | None = None
    result: StrategyResult | None = None
    nothing: str | None = None  # how the model said there was nothing to change

    def __post_init__(self) -> None:
        self.proposal = Proposal(target=self.target.path, kind=self.kind)
        path, suspect = self.target.path, self.suspect
        one_function = self.fmt == "function" and suspect is not None
        self.goal = (
            _suspect_goal(path, suspect)
            if one_function and suspect is not None
            else _goal(self.kind, self.target, self.ctx)
        )

    def ground(self, session: Session, repo: TaskRepo, request: TaskRequest) -> Groundwork:
        ctx, path = self.ctx, self.target.path
        protected = [p for p in ctx.texts if is_test_path(p) and p != path]
        failures = ctx.focus.failures_brief or "\n".join(ctx.focus.findings[:10])
        return Groundwork(self.baseline, dict(ctx.texts), Criterion(), failures, protected,
                          self.proposer.gates(self.baseline))  # fmt: skip

    def build(
        self, session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
        record: RunRecord, person: Person, on_token: OnToken | None,
    ) -> Wired:  # fmt: skip
        kind, ctx, path, fmt = self.kind, self.ctx, self.target.path, self.fmt
        working = WorkingCopy(sorted(ground.texts), repo.read_file, repo.confine,
                              ground.protected, [path])  # fmt: skip
        approve = person.change_approver(repo.root, working.changed_paths)
        bug = kind == "bug"
        self.solver = solver = ReviewSolver(
            model=session.model, working=working,
            checker=self.proposer.widen(ground.checker, path, ctx.focus.findings if bug else []),
            new_txn=lambda: Transaction(repo.root), bus=session.bus,
            keeper=Keeper(repo.root, approve, session.bus), on_token=on_token,
            proposal=self.proposal, goal=self.goal,
            findings=ctx.focus.brief[:15] if bug else [],
            failures=ctx.focus.failures_brief if bug else "", on_step=record.write_trajectory,
        )  # fmt: skip
        text = ctx.texts.get(path, "")
        solver.messages.extend([
            {"role": "system", "content": render("system", fmt=fmt)},
            {"role": "user", "content": self.proposer.prompt(self.target, kind, ctx, fmt, text,
                                                             self.suspect)},
        ])  # fmt: skip
        one_function = self.suspect is not None and fmt == "function"
        opts = SolveOptions(
            self.goal,
            fmt,
            max_iter=request.limits.max_iter,
            reply_tokens=_reply_tokens(fmt, text),
            free_retries=self.proposer.tuning.regenerate,
            done=_done(kind, path, ctx),
            failures=ground.failures,
            definition=self.suspect.name if self.suspect and one_function else "",
        )
        return Wired("pipeline", lambda: self._run(solver, opts), fmt, 1)

    def _run(self, solver: ReviewSolver, opts: SolveOptions) -> StrategyResult:
        try:
            self.result = solver.solve(opts)
        except NothingToPropose as nothing:
            self.nothing = str(nothing)
            self.result = StrategyResult("skipped", 1, reason=self.nothing)
        return self.result

    def outcome(self) -> ProposalOutcome:
        """What became of the proposal, from what its solver handed back."""
        kind, path = self.kind, self.target.path
        if self.nothing is not None or self.result is None or self.solver is None:
            reason = self.nothing or "the proposal did not run"
            return ProposalOutcome("clean", kind, path, reason=reason, attempts=1)
        return _outcome(self.result, self.solver, kind, path)


def _outcome(
    result: StrategyResult, solver: ReviewSolver, kind: Kind, target: str
) -> ProposalOutcome:
    out = ProposalOutcome("failed", kind, target, solver.proposal.rationale,
                          attempts=result.iterations, reason=result.reason)  # fmt: skip
    check = result.check or solver.last_check
    if result.outcome in ("solved", "unverified"):
        out.status, out.files, out.diff = "accepted", result.files_changed, result.diff
        if check is not None:
            out.fixed = [p.render() for r in check.results for p in r.fixed_problems]
            out.test_run = next((r.test_run for r in check.results if r.test_run), None)
    elif result.outcome == "skipped" or (check is not None and check.ok):
        out.status = "skipped"
    elif check is not None:
        out.status, out.errors, out.diff = "rejected", check.summary, solver.working.diff()
    return out
