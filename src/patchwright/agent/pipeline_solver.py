"""The pipeline strategy's solver: prompt → reply → edits (in memory) → transaction → gates
and criterion → repair.

Each iteration asks the model for a change (up to ``candidates`` replies sampled from the same
prompt, the first that is proved done wins), applies it in memory, writes it as a
transaction and runs the gates against the baseline, then the task's definition of done. A
failure rolls the disk back and the model gets the original goal, what "done" means and only
what failed (PyOB's context-aware repair) — unless a gate could not run, which no repair can
fix: that stops the run (``GatesCouldNotRun``) with the disk rolled back. Replies that do
not parse, do not match, change nothing or repeat a rejected change are answered at once
without spending an iteration, from one small budget.

A retry that repeats what failed rarely succeeds with a small model. With a ``Refocus`` (the
function the failing tests convict, see ``relations.suspects``), the iterations after the
first failed one start over: a fresh conversation about that one function, asking for it
corrected, with a fresh budget of answered replies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from patchwright import interrupts
from patchwright.agent.asking import ask_model, was_cut_off
from patchwright.agent.candidates import Tried, rank
from patchwright.agent.checker import Check, lay_out
from patchwright.agent.compiler_fixes import fix_and_recheck, rechecker
from patchwright.agent.context import fence_lang
from patchwright.agent.conversation import Conversation
from patchwright.agent.fit import HEAD
from patchwright.agent.keeping import Declined, Keeper
from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.prompts import render, restated
from patchwright.agent.repair import no_edits_feedback, repair_for
from patchwright.agent.repeats import echo_of
from patchwright.agent.runaway import roomier, said
from patchwright.agent.solve_types import Changes, StrategyOutcome, StrategyResult, Txn
from patchwright.agent.working_copy import Attempt, WorkingCopy
from patchwright.events import (
    CandidateStart,
    EditApplied,
    EditFailed,
    EditRefocused,
    EditRetry,
    EventBus,
    IterationStart,
    TxnRollback,
    TxnWrite,
)
from patchwright.llm import Message, Model, Reply

Trajectory = Callable[[Sequence[Mapping[str, object]], Sequence[Mapping[str, object]]], None]


class Checker(Protocol):
    def check(self, touched: Sequence[str]) -> Check: ...

    def formatted(self, texts: Mapping[str, str | None]) -> dict[str, str]: ...


_ECHO = ("unchanged", "repeated")  # replies that change nothing new


class _Failed(Exception):
    """The change failed its check: rolled back, the repair prompt queued."""

    def __init__(self, check: Check) -> None:
        super().__init__(check.summary)
        self.check = check


@dataclass
class PipelineSolver:
    model: Model
    working: WorkingCopy
    checker: Checker
    new_txn: Callable[[], Txn]
    bus: EventBus
    keeper: Keeper
    on_token: Callable[[str], None] | None = None
    conversation: Conversation = field(default_factory=Conversation)
    actions: list[dict[str, Any]] = field(default_factory=list)
    on_step: Trajectory = lambda messages, actions: None  # the trajectory, after each step
    pending_notes: list[str] = field(default_factory=list)
    rejected: list[Changes] = field(default_factory=list)  # changes verification turned down
    last_check: Check | None = None
    last_failure: str = ""  # what still fails: the baseline's report, then the last rejection's
    retries: int = 0
    replies: int = 0
    repeats: int = 0  # replies in a row that repeated a change verification turned down
    conversation_started: bool = False  # this conversation has had a reply (a refocus resets)
    sample_next: bool = False  # the next request is a new conversation's first: sample it
    refused: str | None = None  # the read-only file the last reply began to rewrite
    looped: str | None = None  # what the last reply repeated over and over, when it looped
    closer: tuple[str, int] | None = None  # the last rejected change's progress (Repair.progress)
    close_at: tuple[str, int] | None = None  # the progress of the change this iteration repairs
    exchange: list[Message] = field(default_factory=list)  # the last request as sent, its reply

    def solve(self, opts: SolveOptions) -> StrategyResult:
        self.last_failure = self.last_failure or opts.failures
        for iteration in range(1, opts.max_iter + 1):
            interrupts.check()
            self.bus.emit(IterationStart(iteration=iteration))
            self.close_at, self.closer = self.closer, None
            result = self._iteration(opts, iteration)
            if result is not None:
                return self._tally(result)
            if self.repeats >= opts.max_repeats:
                reason = (f"stopped at iteration {iteration}: the model proposed a change that "
                          f"had already failed {self.repeats} times in a row; "
                          f"{self._failure_reason()}")  # fmt: skip
                return self._tally(StrategyResult("failed", iteration, reason=reason))
            if iteration < opts.max_iter and self.closer is None:  # close: repaired where made
                opts = self._refocused(opts, iteration + 1)
        return self._tally(StrategyResult("failed", opts.max_iter, reason=self._failure_reason()))

    @property
    def messages(self) -> list[Message]:
        """The conversation's messages as the next request sends them."""
        return self.conversation.messages

    @property
    def history(self) -> list[Message]:
        """Every message of the run, those of a conversation left by a refocus first."""
        return self.conversation.history

    def _refocused(self, opts: SolveOptions, iteration: int) -> SolveOptions:
        """After a failed iteration, ``opts.refocus``'s fresh conversation (each way in once)."""
        focus = opts.refocus
        if focus is None:
            return opts
        self._new_conversation(list(focus.messages))
        self.conversation_started = False
        self.bus.emit(EditRefocused(iteration=iteration, definition=focus.definition,
                                    path=focus.path, way=focus.way))  # fmt: skip
        self.actions.append({"iteration": iteration, "refocus": focus.definition,
                             "path": focus.path, "way": focus.way})  # fmt: skip
        return replace(opts, fmt="function", definition=focus.definition, refocus=focus.then,
                       definition_lang=fence_lang(focus.path) or "python",
                       reply_tokens=focus.reply_tokens,
                       free_retries=self.retries + opts.free_retries)  # fmt: skip

    def _goal(self, opts: SolveOptions) -> str:
        """The goal every repair prompt repeats (a review adds the proposal's rationale): a
        long task by its first paragraph (:func:`restated`)."""
        return restated(opts.task)

    def _tally(self, result: StrategyResult) -> StrategyResult:
        result.retries, result.replies = self.retries, self.replies
        result.check = result.check or self.last_check
        return result

    def _failure_reason(self) -> str:
        check = self.last_check
        if check is not None and check.gates_ok and check.verdict is not None:
            left = ", ".join(check.verdict.remaining[:5])
            return f"no change made the task's check pass within the iterations (still failing: {left})"
        return "no verified change within the iterations"

    # -- one iteration: up to K candidates from the same prompt ------------------------------

    def _iteration(self, opts: SolveOptions, iteration: int) -> StrategyResult | None:
        """The kept (or skipped) change, or None: on to the next iteration, from the
        candidate that came closest."""
        if self.conversation.fresh is not None and len(self.messages) > HEAD:
            self._start_afresh(iteration, "a repair in a conversation repeated a failed change")
            self.sample_next = True
        start, state = len(self.messages), self.working.snapshot()
        tried: list[Tried] = []
        for k in range(opts.candidates):
            if k:
                del self.messages[start:]
                self.working.restore(state)
                self.bus.emit(CandidateStart(iteration=iteration, candidate=k + 1))
            attempt = self._get_edits(opts, iteration, sampled=k > 0)
            closeness = (0, 0)
            if attempt.ok:
                try:
                    return self._verify_and_keep(opts, iteration, first=k == 0)
                except _Failed as failed:
                    closeness = rank(failed.check)
                except Declined as declined:
                    return self._declined(opts, iteration, declined)
            tried.append(Tried(closeness, self.messages[start:], self.working.snapshot()))
        if len(tried) > 1:  # carry on from the candidate that came closest
            best = max(tried, key=lambda t: t.rank)
            del self.messages[start:]
            self.messages.extend(best.messages)
            self.working.restore(best.state)
        return None

    # -- getting a reply that applies ------------------------------------------------------

    def ask(self, opts: SolveOptions, phase: str, temperature: float | None = None) -> Reply:
        asked = ask_model(self.model, self.messages, self.working.protected,
                          reply_tokens=opts.reply_tokens, phase=phase, temperature=temperature,
                          on_token=self._on_token)  # fmt: skip
        self.refused, self.looped = asked.refused, asked.looped
        self.replies += 1
        self.messages.append({"role": "assistant", "content": asked.reply.text})
        self.exchange = [{**m} for m in [*asked.sent, self.messages[-1]]]
        return asked.reply

    def _on_token(self, piece: str) -> None:
        interrupts.check()  # a lost stop request ends a long generation within a token
        if self.on_token is not None:
            self.on_token(piece)

    def _judge_reply(self, reply: Reply, opts: SolveOptions) -> Attempt:
        if self.refused is not None:  # stopped as it began to rewrite the tests: not kept
            self.messages.pop()
            return Attempt(kind="failed", feedback=self.working.refusal(self.refused))
        attempt = self.working.apply_reply(reply.text)
        if not attempt.ok:
            return attempt
        # re-spacing fixes no failing test a runner named or a function is convicted by; with
        # neither, it may be what a format check asks for (Rust-160 spent an iteration on one)
        tests_decide = opts.refocus is not None or opts.fmt == "function" or bool(opts.required)
        kind, layout = echo_of(self.working, self.rejected, tests_decide)
        if kind is None and self._format():  # laid out, it may repeat a change turned down
            kind, layout = echo_of(self.working, self.rejected, tests_decide)
        if kind is None:
            return attempt
        # An echo left in the history invites the next reply to copy it again, and a note in
        # its place is copied word for word by small models: the reply is dropped, and the
        # feedback joins the request it answered (Conversation.add_feedback).
        # Code left as it was fails as it did before any change, not as the last rejected
        # change did (Rust-86: "leaves every file as it was" quoted a rejection's `left: "H"`).
        self.messages.pop()
        fails = opts.failures if kind == "unchanged" else self.last_failure
        shown = self.conversation.shows(fails)
        feedback = render(kind, task=self._goal(opts), done=opts.done, shown=shown,
                          failures="" if shown else fails, layout=layout)  # fmt: skip
        return Attempt(kind=kind, feedback=feedback)

    def _get_edits(self, opts: SolveOptions, iteration: int, *, sampled: bool) -> Attempt:
        """A reply whose edits apply. A failed reply is answered with feedback and retried
        while the run's retry budget lasts (sampled candidates are not retried)."""
        retry, echoed, self.sample_next = 0, self.sample_next, False
        while True:
            # A retry samples a little: a small model asked the same thing greedily tends to
            # repeat the same broken reply — and so does a repair in the conversation that
            # holds the failed change (its greedy answer is that change again).
            repair = retry or self.conversation_started
            temperature = (
                opts.sample_temperature if sampled or echoed else (0.4 if repair else None)
            )
            self.conversation_started = True
            phase = "candidate" if sampled else ("edit-retry" if retry else "edit")
            reply = self.ask(opts, phase, temperature)
            attempt = self._judge_reply(reply, opts)
            self.repeats = self.repeats + 1 if attempt.kind == "repeated" else 0
            cut_off = self.looped is not None or was_cut_off(reply, opts.reply_tokens)
            if cut_off and not attempt.ok and self.messages[-1]["role"] == "assistant":
                # dropped, its feedback joining the request: a runaway reply is noise for every
                # later call, and a truncated one was copied, truncation mark and all (polyglot
                # Rust scale-generator: the third reply sent the second's first 1,200 characters)
                self.messages.pop()
            self.actions.append(
                {
                    "iteration": iteration,
                    "retry": retry,
                    "sampled": sampled,
                    "attempt": attempt.kind,
                    "applied": attempt.applied,
                    "feedback": attempt.feedback,
                }
            )
            self.on_step(self.history, self.actions)
            if attempt.ok:
                self.pending_notes.extend(attempt.notes)
                self.bus.emit(
                    EditApplied(iteration=iteration, paths=attempt.applied, notes=attempt.notes)
                )
                return attempt
            self.bus.emit(
                EditFailed(
                    iteration=iteration, attempt=attempt.kind, feedback=attempt.feedback[:2000]
                )
            )
            if attempt.kind == "repeated" and not sampled and len(self.messages) > HEAD:
                self._start_afresh(iteration, "the reply repeated a failed change")
            else:
                self.conversation.add_feedback(self._feedback(attempt, opts, cut_off))
            if cut_off and self.looped is None and attempt.kind == "no_edits":
                opts.reply_tokens = roomier(opts.reply_tokens)  # it was still writing
            if sampled or self.retries >= opts.free_retries or self.repeats >= opts.max_repeats:
                return attempt
            self.retries += 1
            retry, echoed = retry + 1, attempt.kind in _ECHO
            self.bus.emit(EditRetry(used=self.retries, budget=opts.free_retries, why=attempt.kind))

    def _start_afresh(self, iteration: int, why: str) -> None:
        """After a reply that repeats a failed change, and for each later repair: a new
        conversation from the first request, told what failed but not shown the change (kept
        records: a repair asked in the old one repeated a failed change 28 of 46 times)."""
        system, request = self.messages[:HEAD]
        content = render(
            "afresh", request=self.conversation.restated(request), failures=self.last_failure
        )
        fresh: Message = {"role": "user", "content": content}
        self._new_conversation([system, fresh])
        self.conversation.fresh = fresh
        self.actions.append({"iteration": iteration, "afresh": why})

    def _new_conversation(self, messages: list[Message]) -> None:
        """Go on in ``messages`` from the files as they are; the conversation left stays in
        the record (``history``). A failed change's files — one it made among them — are not
        carried into the new one (HumanEvalFix Go-4: a test file the model wrote failed gofmt
        in every later attempt that did not send it)."""
        self.conversation.restart(messages)
        self.pending_notes.clear()
        self.working.reset()

    def _feedback(self, attempt: Attempt, opts: SolveOptions, cut_off: bool) -> str:
        if attempt.kind != "no_edits":
            return attempt.feedback
        return no_edits_feedback(attempt.feedback, opts, cut_off=cut_off,
                                 protected=sorted(self.working.protected),
                                 looped=said(self.looped) if self.looped else "")  # fmt: skip

    # -- verifying, approving, keeping -------------------------------------------------------

    def _verify_and_keep(
        self, opts: SolveOptions, iteration: int, *, first: bool
    ) -> StrategyResult:
        """Write the change, check it, and keep it through the keeper. Raises ``_Failed``
        (rolled back, the repair prompt queued) or ``Declined`` (rolled back)."""
        changes = self.working.changes()
        txn = self.new_txn()
        txn.stage(changes)
        try:
            txn.write()
            self.bus.emit(TxnWrite(iteration=iteration, paths=sorted(changes)))
            check, fixed = fix_and_recheck(self.working, self.checker.check(sorted(changes)),
                                           rechecker(txn, self.checker.check))  # fmt: skip
            if fixed:  # as the model sent it, too: a repeat of it is known for one
                self.pending_notes += fixed
                self.rejected.append(changes)
            changes, self.last_check = self.working.changes(), check
            check.require_verdicts()  # a gate that could not run ends the run: no repair for it
            if check.ok:
                kept = self.keeper.keep(txn, self.working, self.checker.check, check,
                                        label=self._goal(opts), iteration=iteration)  # fmt: skip
        except Declined as declined:
            self.last_check = declined.check
            txn.rollback()
            self.bus.emit(TxnRollback(iteration=iteration, reason=f"user: {declined.decision}"))
            raise
        except BaseException:
            txn.rollback()
            raise
        if not check.ok:
            self._reject(txn, opts, iteration, changes, check)
            raise _Failed(check)
        self.last_check = kept.check
        self.actions.append({"iteration": iteration, "gates": "passed", "undo": kept.undo_id})
        self.on_step(self.history, self.actions)
        outcome: StrategyOutcome = "solved" if kept.check.solved else "unverified"
        return StrategyResult(outcome, iteration, kept.files, kept.diff, changes=kept.changes,
                              first_try=iteration == 1 and first, check=kept.check,
                              exchange=self.exchange, notes=fixed)  # fmt: skip

    def _format(self) -> bool:
        """The formatter's layout for the changed files where the lint gate checks it
        (``GateChecker.formatted``), noted for the model; True when it changed any."""
        laid_out = lay_out(self.working, self.checker.formatted)
        self.pending_notes += [f"{path}: formatted with gofmt" for path in laid_out]
        return bool(laid_out)

    def _declined(
        self, opts: SolveOptions, iteration: int, declined: Declined
    ) -> StrategyResult | None:
        if declined.decision == "skip":
            return StrategyResult("skipped", iteration, reason="skipped at approval")
        self.working.reset()
        self.messages.append({"role": "user", "content": render("rejected", task=self._goal(opts))})
        return None

    def _reject(
        self, txn: Txn, opts: SolveOptions, iteration: int, changes: Changes, check: Check
    ) -> None:
        self.rejected.append(changes)
        txn.rollback()
        why = "criterion not met" if check.gates_ok else "gates failed"
        self.bus.emit(TxnRollback(iteration=iteration, reason=why))
        files = ({p: self.working.original(p) for p in changes},
                 {p: self.working.text(p) for p in changes})  # fmt: skip
        tests = {p: self.working.original(p) for p in self.working.protected}
        repair = repair_for(check, opts, self._goal(opts), files, self.pending_notes, tests)
        self.pending_notes.clear()
        self.last_failure = repair.report  # a fresh start is told this, without the change
        # a close change (or one that got further: Rust-161) is repaired where it was made
        self.closer = repair.progress if repair.came_closer(self.close_at) else None
        self.messages.append({"role": "user", "content": repair.prompt})
        self.actions.append({"iteration": iteration, "gates": why, "summary": check.summary})
        self.on_step(self.history, self.actions)
