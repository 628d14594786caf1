"""Agent mode: planner → coder → reviewer, each a role with real tools, as a state machine.

The planner (once, unless turned off) reads and submits a plan; the coder searches, reads,
edits, runs and tests until it calls ``finish``; the gates and the task's definition of done
then judge the change — a failure goes straight back to the coder — and the reviewer reads
the diff and approves (with the commit message) or rejects with reasons, which go back to the
coder, a bounded number of times. An approved change passes the same approval path as the
pipeline's and is kept through the one transaction the coder's edits were written in;
anything else rolls that transaction back, so the repository is as it was. A gate that could
not run ends the run the same way (``GatesCouldNotRun``): it is no fault of the coder's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from patchwright import interrupts
from patchwright.agent.checker import Check
from patchwright.agent.commit_message import clean_message
from patchwright.agent.prompts import render
from patchwright.agent.role_runner import Handover, RoleRunner
from patchwright.agent.roles import Role
from patchwright.agent.solve_types import Approver, SolveOutcome, SolveResult, Txn
from patchwright.agent.tools.bench import Workbench
from patchwright.events import EventBus
from patchwright.llm import Message

DEFAULT_STEPS: Mapping[Role, int] = {"planner": 6, "coder": 30, "reviewer": 6}


@dataclass
class AgentOptions:
    task: str
    plan: bool = True
    max_rejections: int = 2
    steps: Mapping[Role, int] = field(default_factory=lambda: dict(DEFAULT_STEPS))
    done: str = ""
    failures: str = ""
    memory: str = ""
    repo_map: str = ""
    readonly: list[str] = field(default_factory=list)


class _Stop(Exception):
    """The run ends without a kept change; the message is the reason."""


@dataclass
class AgentSolver:
    runner: RoleRunner
    bench: Workbench
    bus: EventBus
    approve: Approver
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
        staged = {
            path: data
            for path, data in self.bench.working.touched().items()
            if data is not None or (self.bench.root / path).exists()
        }
        self.txn.stage(staged)
        self.txn.write()

    def _rollback(self) -> None:
        if self.txn is not None:
            self.txn.rollback()
            self.txn = None
            self.bus.emit("txn.rollback", reason="agent run ended without a kept change")

    # -- the state machine -------------------------------------------------------------------

    def solve(self, opts: AgentOptions) -> SolveResult:
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
        self.bus.emit("agent.plan", **dict(handed.data))
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
        )
        return [{"role": "system", "content": render(system)}, {"role": "user", "content": task}]

    def _code_review(self, opts: AgentOptions, coder: list[Message]) -> SolveResult:
        for _ in range(opts.max_rejections + 1):
            self.rounds += 1
            handed = self.runner.run("coder", coder, opts.steps["coder"])
            if handed.control != "finish":
                raise _Stop(str(handed.data.get("reason", "the coder did not finish")))
            verdict = self._judge(opts, str(handed.data.get("summary", "")))
            if isinstance(verdict, SolveResult):
                return verdict
            reasons, by_user = verdict
            self.bus.emit("agent.rejected", reasons=reasons[:2000], by_user=by_user)
            coder.append(
                {
                    "role": "user",
                    "content": render("agent_rejected", reasons=reasons, by_user=by_user),
                }
            )
        raise _Stop(f"the change was sent back {opts.max_rejections + 1} times")

    def _judge(self, opts: AgentOptions, summary: str) -> SolveResult | tuple[str, bool]:
        """The kept change, or (reasons to send it back, whether the user sent it)."""
        changed = self.bench.working.changed_paths()
        if not changed:
            return "you called finish without changing any file", False
        check = self.last_check = self.bench.check(changed)
        check.require_verdicts()  # not the coder's fault: the run stops, rolled back
        if not check.ok:
            return "the gates or the task's check failed:\n" + check.summary, False
        review = self._review(opts, summary, check)
        if review.control == "reject":
            return str(review.data.get("reasons", "")), False
        if review.control != "approve":
            raise _Stop(str(review.data.get("reason", "the reviewer did not decide")))
        return self._keep(opts, check, str(review.data.get("commit_message", "")))

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

    def _keep(
        self, opts: AgentOptions, check: Check, message: str
    ) -> SolveResult | tuple[str, bool]:
        problems = ""
        while True:
            decision = self.approve(self.bench.working.diff(), problems)
            if decision != "edited":
                break
            changed = self.bench.working.changed_paths()
            self.bench.working.absorb(changed)
            self.sync()
            check = self.last_check = self.bench.check(self.bench.working.changed_paths())
            check.require_verdicts()
            problems = "" if check.ok else check.summary
        if decision == "regenerate":
            return "the user asked for a different change", True
        if decision != "apply" or problems:
            return self._result("skipped", reason="skipped at approval")
        assert self.txn is not None
        interrupts.check()
        with interrupts.held():
            undo_id = self.txn.commit(opts.task[:200])
        files = self.bench.working.changed_paths()
        self.bus.emit("txn.commit", undo=undo_id, paths=files)
        outcome: SolveOutcome = "solved" if check.solved else "unverified"
        return self._result(
            outcome,
            files=files,
            diff=self.bench.working.diff(),
            check=check,
            commit_message=clean_message(message) or "",
        )

    def _result(
        self,
        outcome: SolveOutcome,
        *,
        reason: str = "",
        files: list[str] | None = None,
        diff: str = "",
        check: Check | None = None,
        commit_message: str = "",
    ) -> SolveResult:
        usage = {role: u.to_json() for role, u in self.runner.usage.items()}
        return SolveResult(
            outcome,
            self.rounds,
            files or [],
            diff,
            reason,
            first_try=outcome == "solved" and self.rounds == 1,
            check=check or self.last_check,
            steps=sum(u["steps"] for u in usage.values()),
            role_usage=usage,
            commit_message=commit_message,
        )
