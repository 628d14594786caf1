"""What the review loop does with a proposal once it is decided.

An accepted change becomes a commit (the model writes the Conventional Commits message; a tool
fix comes with its own) and a HISTORY.md entry, and its ripples — definitions it removed or re-signed — queue the files
that use them (the cascade). A stop before the commit lands takes the change back, so the
repository is always at its last accepted commit. A proposal the gates turned down goes to
FAILED_PEER_REVIEW.md or FAILED_FEATURE.md with its errors and last attempt.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from patchwright import interrupts
from patchwright.agent.relations.related_tests import is_test_path
from patchwright.agent.task.commit_message import write_commit_message
from patchwright.agent.task.land import commit_change
from patchwright.agent.task.repo import TaskRepo
from patchwright.events import EventBus, TxnUndo
from patchwright.index import RepoIndex, Ripple
from patchwright.llm import Model
from patchwright.modes.review.files import ReviewPaths, cut_diff, failed_entry
from patchwright.modes.review.memory import ReviewMemory
from patchwright.modes.review.propose import ProposalOutcome
from patchwright.modes.review.targeting import CascadeItem, Target
from patchwright.workspace.undoing import undo

PENDING = {"feature": "FEATURE.md"}  # other kinds: PEER_REVIEW.md
FAILED = {"feature": ("FAILED_FEATURE.md", "Failed feature proposals")}
FAILED_REVIEW = ("FAILED_PEER_REVIEW.md", "Failed peer-review proposals")


def pending_name(kind: str) -> str:
    return PENDING.get(kind, "PEER_REVIEW.md")


@dataclass
class Settler:
    repo: TaskRepo
    model: Model
    paths: ReviewPaths
    memory: ReviewMemory
    bus: EventBus
    commit: bool = True

    def accept(
        self, outcome: ProposalOutcome, notes: list[str], *, message: str | None = None
    ) -> None:
        """Commit the kept change and record it in HISTORY.md (see the module docstring).
        ``message``: the commit's, when it is not the model's to write (a tool fix)."""
        sha: str | None = None
        try:
            interrupts.check()
            if not (self.commit and self.repo.git is not None):
                message = ""
            elif message is None:
                task = outcome.rationale or f"review of {outcome.target}"
                message = write_commit_message(self.model, task, outcome.diff)
            interrupts.check()
            with interrupts.held():
                if message:
                    sha = commit_change(self.repo, message, outcome.files, notes)
                outcome.commit = sha
                self.memory.record_change(paths=outcome.files, kind=outcome.kind,
                                          rationale=outcome.rationale, diff=outcome.diff,
                                          commit=sha)  # fmt: skip
        except BaseException as exc:  # a stop or a crash before the commit lands keeps nothing
            if sha is None and (self.commit and self.repo.git is not None):
                undo(self.repo.root, 1)
                why = "stopped" if isinstance(exc, KeyboardInterrupt) else f"{type(exc).__name__}"
                self.bus.emit(TxnUndo(reason=f"{why} before the change was committed"))
                outcome.status, outcome.reason = "skipped", f"{why} before it was committed"
            raise
        finally:
            self.paths.remove(pending_name(outcome.kind))

    def reject(self, outcome: ProposalOutcome) -> None:
        name, title = FAILED.get(outcome.kind, FAILED_REVIEW)
        entry = failed_entry(target=outcome.target, kind=outcome.kind,
                             rationale=outcome.rationale or outcome.reason,
                             errors=outcome.errors, diff=outcome.diff)  # fmt: skip
        self.paths.append(name, entry, title=title)
        self.paths.remove(pending_name(outcome.kind))

    def dismiss(self, outcome: ProposalOutcome) -> None:
        self.paths.remove(pending_name(outcome.kind))

    def clear_pending(self) -> None:
        """No proposal waits once the loop has ended."""
        for name in {*PENDING.values(), pending_name("bug")}:
            self.paths.remove(name)


def describe(ripple: Ripple) -> str:
    if ripple.change == "removed":
        return f"`{ripple.name}` was removed (it was `{ripple.old_signature}`)"
    return f"`{ripple.name}` changed from `{ripple.old_signature}` to `{ripple.new_signature}`"


def cascade_items(
    index: RepoIndex,
    outcome: ProposalOutcome,
    before: Mapping[str, str],
    after: Mapping[str, str],
    exclude: Collection[str] = (),
) -> list[CascadeItem]:
    """The files to revisit because the accepted change removed or re-signed a definition
    they use (not the changed files themselves, not tests, not ``exclude``)."""
    users: dict[str, list[str]] = {}
    triggers: dict[str, str] = {}
    for path in outcome.files:
        old, new = before.get(path), after.get(path)
        if old is None or new is None:
            continue
        for ripple in index.ripples(path, old, new):
            for user in ripple.referenced_by:
                if user in outcome.files or user in exclude or is_test_path(user):
                    continue
                users.setdefault(user, []).append(describe(ripple))
                triggers.setdefault(user, path)
    diff = cut_diff(outcome.diff)
    return [CascadeItem(u, triggers[u], tuple(dict.fromkeys(r)), diff) for u, r in users.items()]


def iteration_notes(
    iteration: int, target: Target, outcome: ProposalOutcome, queue: Sequence[CascadeItem]
) -> list[str]:
    """What MEMORY.md is told of one iteration: the review, its outcome, the queue."""
    why = target.reasons[0] if target.reasons else "chosen"
    line = f"iteration {iteration}: reviewed {target.path} ({why}): {outcome.status}"
    notes = [line + (f" — {outcome.rationale}" if outcome.rationale else "")]
    if outcome.commit:
        notes.append(f"committed {outcome.commit[:12]} changing {', '.join(outcome.files)}")
    if outcome.status == "rejected":
        notes.append(f"the gates rejected it: {outcome.errors.strip()[:300]}")
    if queue:
        notes.append("cascade queue: " + ", ".join(i.path for i in queue))
    return notes
