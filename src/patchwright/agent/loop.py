"""The solve loop: prompt → reply → edits (in memory) → transaction → gates → repair.

Each iteration asks the model for a change, applies it in memory, writes it as a transaction
and runs the gates against the baseline. A failed gate rolls the disk back and the model gets
the original goal plus only what matters (PyOB's context-aware repair). Replies whose edits
do not parse or match are answered with the edit engine's "did you mean" message without
spending an iteration, a bounded number of times.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from patchwright import interrupts
from patchwright.agent.prompts import render
from patchwright.agent.working_copy import Attempt, WorkingCopy
from patchwright.events import EventBus
from patchwright.llm import Message, Model, Reply

Decision = Literal["apply", "skip", "regenerate", "edited"]


class Approver(Protocol):
    """Shown the verified diff (and, after a user's own edit, what the gates found wrong
    with it), answers: apply it, skip the task, regenerate, or "edited" (the user changed
    the files on disk: re-verify and ask again)."""

    def __call__(self, diff: str, problems: str = "") -> Decision: ...


class Check(Protocol):
    """Result of running the gates on the written change."""

    @property
    def ok(self) -> bool: ...

    @property
    def summary(self) -> str: ...


class Checker(Protocol):
    def check(self, touched: Sequence[str]) -> Check: ...


class Txn(Protocol):
    def stage(self, changes: dict[str, bytes | None]) -> None: ...
    def write(self) -> None: ...
    def rollback(self) -> None: ...
    def commit(self, label: str = "") -> str: ...


def _unchanged(task: str) -> str:
    return (
        "Your reply leaves every file exactly as it was, so the problem is still there. "
        "Find the line that causes it and change that line.\n\nThe task: " + task
    )


def _repeated(task: str) -> str:
    return (
        "Your reply repeats the change that already failed verification (the failures are "
        "above). Try a different fix.\n\nThe task: " + task
    )


def _cut_off(reply: Reply, limit: int) -> bool:
    """True when the reply stopped at the token limit rather than finishing."""
    return reply.finish_reason == "length" or reply.usage.completion_tokens >= limit


@dataclass
class SolveOptions:
    task: str
    fmt: str
    max_iter: int = 4
    max_format_retries: int = 2
    reply_tokens: int = 2048


@dataclass
class SolveResult:
    outcome: Literal["solved", "failed", "skipped"]
    iterations: int
    files_changed: list[str] = field(default_factory=list)
    diff: str = ""
    reason: str = ""
    first_try: bool = False


@dataclass
class Solver:
    model: Model
    working: WorkingCopy
    checker: Checker
    new_txn: Callable[[], Txn]
    bus: EventBus
    approve: Approver
    on_token: Callable[[str], None] | None = None
    messages: list[Message] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    on_step: Callable[[], None] = lambda: None
    pending_notes: list[str] = field(default_factory=list)
    failed_changes: dict[str, bytes | None] | None = None  # the last change the gates rejected

    def ask(self, opts: SolveOptions, phase: str, temperature: float | None = None) -> Reply:
        self.bus.emit("model.request", phase=phase, messages=len(self.messages))
        started = time.monotonic()
        reply = self.model.complete(
            self.messages,
            on_token=self._on_token,
            max_tokens=opts.reply_tokens,
            temperature=temperature,
        )
        self.messages.append({"role": "assistant", "content": reply.text})
        self.bus.emit(
            "model.reply",
            phase=phase,
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            cost=reply.cost,
            seconds=round(time.monotonic() - started, 3),
        )
        return reply

    def _on_token(self, piece: str) -> None:
        interrupts.check()  # a lost stop request ends a long generation within a token
        if self.on_token is not None:
            self.on_token(piece)

    def _get_edits(self, opts: SolveOptions, iteration: int) -> Attempt:
        attempt = Attempt(kind="no_edits")
        for retry in range(opts.max_format_retries + 1):
            # A retry samples a little: a small model asked the same thing greedily tends to
            # repeat the same broken reply.
            reply = self.ask(opts, "edit-retry", 0.4) if retry else self.ask(opts, "edit")
            attempt = self.working.apply_reply(reply.text)
            if attempt.ok and not self.working.changes():
                attempt = Attempt(kind="unchanged", feedback=_unchanged(opts.task))
            elif attempt.ok and self.working.changes() == self.failed_changes:
                attempt = Attempt(kind="repeated", feedback=_repeated(opts.task))
            cut_off = _cut_off(reply, opts.reply_tokens)
            if cut_off and not attempt.ok:
                # keep the conversation short: a runaway reply is noise for every later call
                self.messages[-1]["content"] = reply.text[:1200] + "\n[... reply cut off]"
            self.actions.append(
                {
                    "iteration": iteration,
                    "retry": retry,
                    "attempt": attempt.kind,
                    "applied": attempt.applied,
                    "feedback": attempt.feedback,
                }
            )
            self.on_step()
            if attempt.ok and attempt.notes:
                self.pending_notes.extend(attempt.notes)
            if attempt.ok:
                self.bus.emit(
                    "edit.applied", iteration=iteration, paths=attempt.applied, notes=attempt.notes
                )
                return attempt
            self.bus.emit(
                "edit.failed",
                iteration=iteration,
                attempt=attempt.kind,
                feedback=attempt.feedback[:2000],
            )
            if attempt.kind == "no_edits":
                errors = [e.removeprefix("- ") for e in attempt.feedback.splitlines() if e]
                message = render(
                    "no_edits",
                    fmt=opts.fmt,
                    errors=errors,
                    cut_off=cut_off,
                    limit=opts.reply_tokens,
                    protected=sorted(self.working.protected),
                )
            else:
                message = attempt.feedback
            self.messages.append({"role": "user", "content": message})
        return attempt

    def solve(self, opts: SolveOptions) -> SolveResult:
        for iteration in range(1, opts.max_iter + 1):
            interrupts.check()
            self.bus.emit("iteration.start", iteration=iteration)
            attempt = self._get_edits(opts, iteration)
            if not attempt.ok:
                continue  # the last feedback message is already queued for the next reply
            changes = self.working.changes()
            if not changes:
                self.messages.append({"role": "user", "content": _unchanged(opts.task)})
                continue
            result = self._verify_and_decide(opts, iteration, changes)
            if result is not None:
                return result
        return SolveResult(
            "failed", opts.max_iter, reason="no verified change within the iterations"
        )

    def _verify_and_decide(
        self, opts: SolveOptions, iteration: int, changes: dict[str, bytes | None]
    ) -> SolveResult | None:
        txn = self.new_txn()
        txn.stage(changes)
        try:
            txn.write()
            self.bus.emit("txn.write", iteration=iteration, paths=sorted(changes))
            check = self.checker.check(sorted(changes))
            if not check.ok:
                self.failed_changes = changes
                txn.rollback()
                self.bus.emit("txn.rollback", iteration=iteration, reason="gates failed")
                failures = "\n".join([*self.pending_notes, check.summary])
                self.pending_notes.clear()
                repair = render("repair", task=opts.task, failures=failures, fmt=opts.fmt)
                self.messages.append({"role": "user", "content": repair})
                self.actions.append(
                    {"iteration": iteration, "gates": "failed", "summary": check.summary}
                )
                self.on_step()
                return None
            decision, changes = self._approve(txn, iteration, changes)
            diff = self.working.diff()
            if decision != "apply":
                txn.rollback()
                self.bus.emit("txn.rollback", iteration=iteration, reason=f"user: {decision}")
                if decision == "skip":
                    return SolveResult("skipped", iteration, reason="skipped at approval")
                self.working.reset()
                self.messages.append(
                    {
                        "role": "user",
                        "content": "The user rejected that change. "
                        "Propose a different change for the same task: " + opts.task,
                    }
                )
                return None
            interrupts.check()  # a stop whose KeyboardInterrupt was swallowed keeps nothing
            with interrupts.held():  # a stop from here on is raised by the caller's next check
                undo_id = txn.commit(opts.task[:200])
        except BaseException:
            txn.rollback()
            raise
        self.bus.emit("txn.commit", iteration=iteration, undo=undo_id, paths=sorted(changes))
        self.actions.append({"iteration": iteration, "gates": "passed", "undo": undo_id})
        self.on_step()
        return SolveResult("solved", iteration, sorted(changes), diff, first_try=iteration == 1)

    def _approve(
        self, txn: Txn, iteration: int, changes: dict[str, bytes | None]
    ) -> tuple[Decision, dict[str, bytes | None]]:
        """Ask for approval; a change the user edits is written, re-verified and shown again
        (never committed unverified). The edited diff goes to the run record either way."""
        problems = ""
        while True:
            decision = self.approve(self.working.diff(), problems)
            if decision != "edited":
                if problems and decision == "apply":
                    decision = "skip"  # never apply a change that fails the gates
                return decision, changes
            self.working.absorb(sorted(changes))
            changes = self.working.changes()
            if not changes:
                return "skip", changes  # the user undid the whole change
            txn.stage(changes)
            txn.write()
            check = self.checker.check(sorted(changes))
            problems = "" if check.ok else check.summary
            self.bus.emit(
                "approval.edited",
                iteration=iteration,
                ok=check.ok,
                diff=self.working.diff(),
                problems=problems[:2000],
            )
