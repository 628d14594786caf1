"""Agent mode: planner → coder → reviewer, each a role with real tools, as a state machine.

The planner (once, unless turned off) reads and submits a plan; the coder searches, reads,
edits, runs and tests until it calls ``finish``; the gates and the task's definition of done
then judge the change — a failure goes straight back to the coder — and the reviewer reads
the diff and approves (with the commit message) or rejects with reasons, which go back to the
coder — at most ``max_iter`` rounds, and at most ``max_rejections`` times sent back. An
approved change is kept by the same :class:`~patchwright.agent.keeping.Keeper` as the
pipeline's, through the one transaction the coder's edits were written in; anything else
rolls that transaction back, so the repository is as it was. A gate that could not run ends
the run the same way (``GatesCouldNotRun``): it is no fault of the coder's. "Done" travels as
exceptions with the reason: ``_SentBack`` (another round) and ``_Stop`` (the run ends).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from patchwright.agent.checker import Check, lay_out
from patchwright.agent.compiler_fixes import fix_and_recheck
from patchwright.agent.context import ContextFile
from patchwright.agent.keeping import Declined, Keeper, Kept, write_change
from patchwright.agent.prompts import render
from patchwright.agent.role_runner import Handover, RoleRunner
from patchwright.agent.roles import Role
from patchwright.agent.solve_types import Changes, StrategyOutcome, StrategyResult, Txn
from patchwright.agent.tools.bench import Workbench
from patchwright.events import AgentPlan, AgentRejected, EventBus, TxnRollback
from patchwright.llm import Message

DEFAULT_STEPS: Mapping[Role, int] = {"planner": 6, "coder": 30, "reviewer": 6}


@dataclass
class AgentOptions:
    """What one agent run is asked (the limits are the request's: no defaults here)."""

    task: str
    max_iter: int  # coder rounds: a change written, judged and kept or sent back
    plan: bool  # the planner runs first
    max_rejections: int  # times the change may be sent back to the coder
    steps: Mapping[Role, int] = field(default_factory=lambda: dict(DEFAULT_STEPS))
    done: str = ""
    failures: str = ""
    memory: str = ""
    repo_map: str = ""
    readonly: list[str] = field(default_factory=list)
    fmt: str = "diff"  # the edit format the coder is asked for
    files: list[ContextFile] = field(default_factory=list)  # --include: in the first context
    omitted: list[str] = field(default_factory=list)  # --include files over the budget


class _Stop(Exception):
    """The run ends without a kept change; the message is the reason."""


class _SentBack(Exception):
    """The change goes back to the coder: ``reasons`` (``by_user``: the person asked)."""

    def __init__(self, reasons: str, *, by_user: bool = False) -> None:
        super().__init__(reasons)
        self.reasons = reasons
        self.by_user = by_user


@dataclass
class AgentSolver:
    runner: RoleRunner
    bench: Workbench
    bus: EventBus
    keeper: Keeper
    new_txn: Callable[[], Txn]
    txn: Txn | None = None
    last_check: Check | None = None
    rounds: int = 0
    conversations: dict[str, list[Message]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.bench.sync = self.sync

    # -- the change on disk: one transaction for the whole run ------------------------------

    def sync(self) -> None:
        """Mirror the working copy to disk (files changed back are restored too)."""
        if self.txn is None:
            self.txn = self.new_txn()
        write_change(self.txn, self.bench.root, self.bench.working)

    def _recheck(self, changes: Changes) -> Check:
        """The check of the working copy as it now is (the compiler's fixes made in it)."""
        self.sync()
        return self.bench.check(sorted(changes))

    def _rollback(self) -> None:
        if self.txn is not None:
            self.txn.rollback()
            self.txn = None
            self.bus.emit(TxnRollback(reason="agent run ended without a kept change"))

    # -- the state machine -------------------------------------------------------------------

    def solve(self, opts: AgentOptions) -> StrategyResult:
        try:
            plan = self._plan(opts) if opts.plan else Handover(None)
            coder = self.conversations["coder"] = self._brief("agent_coder", opts, plan)
            result = self._code_review(opts, coder)
        except _Stop as stop:
            self._rollback()
            return self._result("failed", reason=str(stop))
        except BaseException:
            self._rollback()
            raise
        if result.outcome not in ("solved", "unverified"):
            self._rollback()
        return result

    def _plan(self, opts: AgentOptions) -> Handover:
        messages = self.conversations["planner"] = self._brief(
            "agent_planner", opts, Handover(None)
        )
        handed = self.runner.run("planner", messages, opts.steps["planner"])
        data = handed.data
        self.bus.emit(AgentPlan(steps=data.get("steps"), files=data.get("files"),
                                reason=data.get("reason")))  # fmt: skip
        return handed if handed.control == "plan" else Handover(None)

    def _brief(self, system: str, opts: AgentOptions, plan: Handover) -> list[Message]:
        task = render(
            "agent_task",
            task=opts.task,
            done=opts.done,
            failures=opts.failures,
            memory=opts.memory,
            repo_map=opts.repo_map,
            plan=list(plan.data.get("steps", [])),
            plan_files=list(plan.data.get("files", [])),
            readonly=opts.readonly,
            files=opts.files,
            omitted=opts.omitted,
        )
        return [
            {"role": "system", "content": render(system, fmt=opts.fmt)},
            {"role": "user", "content": task},
        ]

    def _code_review(self, opts: AgentOptions, coder: list[Message]) -> StrategyResult:
        """Rounds of coder → judge, until a change is kept, ``max_iter`` rounds are spent, or
        the change was sent back ``max_rejections`` + 1 times."""
        sent_back = 0
        while True:
            self.rounds += 1
            handed = self.runner.run("coder", coder, opts.steps["coder"])
            if handed.control != "finish":
                raise _Stop(str(handed.data.get("reason", "the coder did not finish")))
            try:
                return self._judge(opts, str(handed.data.get("summary", "")))
            except _SentBack as back:
                sent_back += 1
                if sent_back > opts.max_rejections:
                    raise _Stop(f"the change was sent back {sent_back} times") from None
                if self.rounds >= opts.max_iter:
                    raise _Stop(f"no change was kept within --max-iter {opts.max_iter} "
                                f"round(s) (sent back: {back.reasons[:300]})") from None  # fmt: skip
                self.bus.emit(AgentRejected(reasons=back.reasons[:2000], by_user=back.by_user))
                coder.append({"role": "user", "content": render(
                    "agent_rejected", reasons=back.reasons, by_user=back.by_user)})  # fmt: skip

    def _judge(self, opts: AgentOptions, summary: str) -> StrategyResult:
        """The kept (or skipped) change; raises ``_SentBack`` with the reasons otherwise."""
        changed = self.bench.working.changed_paths()
        if not changed:
            raise _SentBack("you called finish without changing any file")
        if lay_out(self.bench.working, self.bench.formatted):  # not refused for layout
            self.sync()
        check, fixed = fix_and_recheck(self.bench.working, self.bench.check(changed), self._recheck)
        self.last_check = check
        check.require_verdicts()  # not the coder's fault: the run stops, rolled back
        if not check.ok:
            fixes = "".join(f"{note}\n" for note in fixed)
            raise _SentBack(f"{fixes}the gates or the task's check failed:\n{check.summary}")
        review = self._review(opts, summary, check)
        if review.control == "reject":
            raise _SentBack(str(review.data.get("reasons", "")))
        if review.control != "approve":
            raise _Stop(str(review.data.get("reason", "the reviewer did not decide")))
        kept = self._keep(opts, check, str(review.data.get("commit_message", "")))
        kept.notes.extend(fixed)
        return kept

    def _review(self, opts: AgentOptions, summary: str, check: Check) -> Handover:
        state = (
            "all gates pass and the task's check passes"
            if check.solved
            else (check.unproved_note() or "all gates pass")
        )
        messages: list[Message] = [
            {"role": "system", "content": render("agent_reviewer")},
            {"role": "user", "content": render("agent_review", task=opts.task, done=opts.done,
                                               summary=summary, diff=self.bench.working.diff()[:8000],
                                               check=state)},
        ]  # fmt: skip
        self.conversations[f"reviewer-{self.rounds}"] = messages
        return self.runner.run("reviewer", messages, opts.steps["reviewer"])

    def _keep(self, opts: AgentOptions, check: Check, message: str) -> StrategyResult:
        assert self.txn is not None  # the coder's edits were written in it
        try:
            kept = self.keeper.keep(self.txn, self.bench.working, self.bench.check, check,
                                    label=opts.task)  # fmt: skip
        except Declined as declined:
            self.last_check = declined.check
            if declined.decision == "regenerate":
                raise _SentBack("the user asked for a different change", by_user=True) from None
            return self._result("skipped", reason="skipped at approval")
        self.txn = None  # committed, or rolled back with the change handed back
        outcome: StrategyOutcome = "solved" if kept.check.solved else "unverified"
        return self._result(outcome, kept=kept, commit_message=message)

    def _result(
        self,
        outcome: StrategyOutcome,
        *,
        reason: str = "",
        kept: Kept | None = None,
        commit_message: str = "",
    ) -> StrategyResult:
        usage = {role: u.to_json() for role, u in self.runner.usage.items()}
        return StrategyResult(
            outcome,
            self.rounds,
            kept.files if kept else [],
            kept.diff if kept else "",
            reason,
            first_try=outcome == "solved" and self.rounds == 1,
            check=kept.check if kept else self.last_check,
            steps=sum(u["steps"] for u in usage.values()),
            role_usage=usage,
            commit_message=commit_message,
            changes=kept.changes if kept else {},
        )
