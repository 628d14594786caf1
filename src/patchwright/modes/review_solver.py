"""The run's solve loop, taught three things a review needs.

* "Nothing to change" is an answer, not a failure: a first reply that says ``NO_ISSUES`` or
  that leaves every file as it is ends the proposal as *clean* at once, instead of being
  answered and retried.
* The goal of a repair is the proposal itself: once the model has said what it changes and
  why, that rationale joins the goal every repair prompt repeats (PyOB's context-aware
  repair knows what the change was for).
* Instructions the user adds at the checkpoint reach the next reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from patchwright.agent.loop import SolveOptions, Solver
from patchwright.agent.prompts import render
from patchwright.llm import Reply
from patchwright.modes.review_checkpoint import Proposal
from patchwright.modes.review_files import one_line

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
class ReviewSolver(Solver):
    proposal: Proposal = field(default_factory=Proposal)
    goal: str = ""  # what the review asked for; the rationale is added once known
    augmented: int = 0  # how many of the user's instructions are already in the conversation

    def ask(self, opts: SolveOptions, phase: str, temperature: float | None = None) -> Reply:
        self._add_instructions()
        first = self.replies == 0
        reply = super().ask(opts, phase, temperature)
        if first and phase == "edit":
            if says_nothing(reply.text):
                raise NothingToPropose("the model found nothing to change")
            if self._changes_nothing(reply.text):
                raise NothingToPropose("the model's reply leaves the file as it is")
        rationale = rationale_of(reply.text)
        if rationale and phase in ("edit", "edit-retry", "candidate"):
            self.proposal.rationale = rationale
            opts.task = f"{self.goal}\nThe change you proposed: {rationale}"
        return reply

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
