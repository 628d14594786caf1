"""The run's solve loop, taught three things a review needs.

* "Nothing to change" is an answer, not a failure: a first reply that says ``NO_ISSUES`` or
  that leaves every file as it is ends the proposal as *clean* at once, instead of being
  answered and retried — unless the tools found problems in the target (lint, types,
  failing tests): then the model is shown them once more and asked to fix one, and only a
  second "nothing" ends it (a small model often answers NO_ISSUES to a file whose tests fail).
* The goal of a repair is the proposal itself: once the model has said what it changes and
  why, that rationale joins the goal every repair prompt repeats (``_goal``; PyOB's
  context-aware repair knows what the change was for).
* Instructions the user adds at the checkpoint reach the next reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.pipeline_solver import PipelineSolver
from patchwright.agent.prompts import render
from patchwright.events import ReviewPress
from patchwright.llm import Reply
from patchwright.modes.review.checkpoint import Proposal
from patchwright.modes.review.files import one_line

NOTHING = "NO_ISSUES"
_EDIT_START = re.compile(r"^(?:```|<<<<<<< SEARCH|<EDIT>|--- a/|diff --git)", re.M)
_PATHLIKE = re.compile(r"^[`*]*[\w./-]+\.\w{1,5}[`*:]*$")
_FILLER = re.compile(
    r"^(?:here(?:'s| is)|below is|the (?:updated|fixed|corrected|complete) (?:file|code))\b",
    re.I,
)


class NothingToPropose(Exception):
    """The model found nothing to change; the message says how it said so."""


def says_nothing(text: str) -> bool:
    """True for a reply that answers with the NO_ISSUES marker and no edits."""
    return NOTHING in text.upper().replace(" ", "_") and "```" not in text


def rationale_of(text: str) -> str:
    """The prose before the first edit block: what the proposal changes and why."""
    match = _EDIT_START.search(text)
    head = text[: match.start()] if match else ""
    lines = [x.strip() for x in head.strip().splitlines() if x.strip()]
    while lines and _PATHLIKE.match(lines[-1]):
        lines.pop()
    kept = [x for x in lines if not _FILLER.match(x)]
    return one_line(" ".join(kept), 600)


@dataclass
class ReviewSolver(PipelineSolver):
    proposal: Proposal = field(default_factory=Proposal)
    goal: str = ""  # what the review asked for; the rationale is added once known
    augmented: int = 0  # how many of the user's instructions are already in the conversation
    findings: list[str] = field(default_factory=list)  # what the tools found in the target
    failures: str = ""  # failing tests that run through the target
    pressed: bool = False  # the model was already shown the findings after a "nothing"

    def ask(self, opts: SolveOptions, phase: str, temperature: float | None = None) -> Reply:
        self._add_instructions()
        first = self.replies == 0
        reply = super().ask(opts, phase, temperature)
        if first and phase == "edit":
            reply = self._unless_nothing(reply, opts, phase, temperature)
        rationale = rationale_of(reply.text)
        if rationale and phase in ("edit", "edit-retry", "candidate"):
            self.proposal.rationale = rationale
        return reply

    def _goal(self, opts: SolveOptions) -> str:
        """The review's goal, and once the model said it, what its change is for."""
        rationale = self.proposal.rationale
        goal = self.goal or opts.task
        return f"{goal}\nThe change you proposed: {rationale}" if rationale else goal

    def _unless_nothing(
        self, reply: Reply, opts: SolveOptions, phase: str, temperature: float | None
    ) -> Reply:
        """The reply, unless it says there is nothing to change (then NothingToPropose)."""
        why = self._nothing(reply.text)
        if why and (self.findings or self.failures) and not self.pressed:
            self.pressed = True
            self.bus.emit(ReviewPress(findings=len(self.findings), why=why))
            press = render("review_press", path=self.proposal.target, findings=self.findings,
                           failures=self.failures, fmt=opts.fmt)  # fmt: skip
            self.messages.append({"role": "user", "content": press})
            reply = super().ask(opts, phase, temperature)
            why = self._nothing(reply.text)
            if why:
                why += ", though the tools report problems in it"
        if why:
            raise NothingToPropose(why)
        return reply

    def _nothing(self, text: str) -> str:
        if says_nothing(text):
            return "the model found nothing to change"
        if self._changes_nothing(text):
            return "the model's reply leaves the file as it is"
        return ""

    def _changes_nothing(self, text: str) -> bool:
        state = self.working.snapshot()
        try:
            attempt = self.working.apply_reply(text)
            return attempt.ok and not self.working.changes()
        finally:
            self.working.restore(state)

    def _add_instructions(self) -> None:
        new = self.proposal.augment[self.augmented :]
        if not new or not self.messages:
            return
        self.augmented = len(self.proposal.augment)
        extra = render("review_augment", lines=new)
        last = self.messages[-1]
        if last.get("role") == "user":
            last["content"] = f"{last.get('content', '')}\n\n{extra}"
        else:
            self.messages.append({"role": "user", "content": extra})
