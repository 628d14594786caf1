"""Tool fixes as review proposals: transactions through the review's own gates, checkpoint
and commit — with no model.

The planned fixes (:mod:`.autofix`) of every file go into one transaction: written, checked
by the same gates as a model's proposal (syntax, lint and types on the files and their
dependents, the test suite, the smoke run), shown at the checkpoint, committed as
``fix(lint): …`` and recorded in HISTORY.md. When the gates turn the batch down it is rolled
back and split in halves, each tried as its own transaction, down to single files: a fix
that breaks a test holds back no other, and is found in a few checks. A file whose fix still
fails alone is archived in FAILED_PEER_REVIEW.md with the gates' errors; its findings stay
for the model. A fix turned down (by the gates or the person) is not proposed again at the
same content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from patchwright import interrupts
from patchwright.agent.keeping import Declined, write_change
from patchwright.agent.task.repo import TaskRepo
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import EventBus, TxnRollback, TxnWrite
from patchwright.modes.review.autofix import FileFix, ToolFixer
from patchwright.modes.review.checkpoint import Proposal
from patchwright.modes.review.files import one_line
from patchwright.modes.review.propose import ProposalOutcome, Proposer
from patchwright.modes.review.settle import Settler
from patchwright.verify import Baseline
from patchwright.workspace.transaction import Transaction

SUBJECT_CHARS = 72
_NAMES = {"ruff --fix": "ruff's safe fixes", "ruff format": "ruff format",
          "eslint --fix": "ESLint's fixes"}  # fmt: skip


def commit_message(fixes: Sequence[FileFix]) -> str:
    """``fix(lint): <what> in <where>``, then a line per file."""
    codes = ", ".join(dict.fromkeys(c for f in fixes for c in f.codes))
    tools = dict.fromkeys(t for f in fixes for t in f.tools)
    what = [_NAMES.get(t, t) + (f" ({codes})" if t == "ruff --fix" and codes else "")
            for t in tools]  # fmt: skip
    where = fixes[0].path if len(fixes) == 1 else f"{len(fixes)} files"
    subject = f"fix(lint): {' and '.join(what)} in {where}"
    if len(subject) > SUBJECT_CHARS:
        subject = f"fix(lint): tool fixes in {where}"[:SUBJECT_CHARS]
    listed = "\n".join(f"- {f.describe()}" for f in fixes[:60])
    more = f"\n- … and {len(fixes) - 60} more" if len(fixes) > 60 else ""
    return f"{subject}\n\n{listed}{more}\n\nMade by the tools, with no model; checked by the gates."


def rationale(fixes: Sequence[FileFix]) -> str:
    return one_line("Tool fixes, no model: " + "; ".join(f.describe() for f in fixes), 600)


def batch_target(fixes: Sequence[FileFix]) -> str:
    """The file a batch fixes, or "." for a batch over several files."""
    return fixes[0].path if len(fixes) == 1 else "."


@dataclass
class ToolStep:
    repo: TaskRepo
    proposer: Proposer  # the review's gates and checkpoint
    settler: Settler
    fixer: ToolFixer
    bus: EventBus
    report: Callable[[ProposalOutcome], None]  # each outcome, once settled
    notes: list[str]  # the run's notes (a change left uncommitted says why here)

    def run(
        self, fixes: Sequence[FileFix], baseline: Baseline, iteration: int
    ) -> list[ProposalOutcome]:
        """Fix, check and keep (or roll back) ``fixes``, bisecting a batch the gates refuse;
        the outcomes, each settled (committed, archived or dismissed) and reported."""
        done: list[ProposalOutcome] = []
        self._try(list(fixes), baseline, iteration, done)
        return done

    def _try(
        self, fixes: list[FileFix], baseline: Baseline, iteration: int,
        done: list[ProposalOutcome],
    ) -> None:  # fmt: skip
        interrupts.check()
        outcome = self._transact(fixes, baseline, iteration)
        if outcome.status == "rejected" and len(fixes) > 1:
            half = len(fixes) // 2
            self._try(fixes[:half], baseline, iteration, done)
            self._try(fixes[half:], baseline, iteration, done)
            return
        if outcome.status == "accepted":
            self.settler.accept(outcome, self.notes, message=commit_message(fixes))
        elif outcome.status == "rejected":
            self.settler.reject(outcome)
        else:
            self.settler.dismiss(outcome)
        if outcome.status != "accepted":
            self.fixer.decline(fixes)
        done.append(outcome)
        self.report(outcome)

    def _transact(
        self, fixes: list[FileFix], baseline: Baseline, iteration: int
    ) -> ProposalOutcome:
        repo, paths = self.repo, [f.path for f in fixes]
        target, why = batch_target(fixes), rationale(fixes)
        out = ProposalOutcome("failed", "lint", target, why, attempts=1)
        working = WorkingCopy(paths, repo.read_file, repo.confine, (), paths)
        for fix in fixes:
            if working.text(fix.path) == fix.old:
                working.write(fix.path, fix.new)
        changed = working.changed_paths()
        if not changed:
            out.reason = "the files changed since their fixes were planned"
            return out
        checker = self.proposer.checker(baseline, target, [])
        keeper = self.proposer.keeper(Proposal(target=target, kind="lint", rationale=why), working)
        txn = Transaction(repo.root)
        try:
            write_change(txn, repo.root, working)
            self.bus.emit(TxnWrite(iteration=iteration, paths=changed))
            check = checker.check(changed)
            check.require_verdicts()  # a gate that could not run stops the loop, as for a model
            if not check.ok:
                txn.rollback()
                self.bus.emit(TxnRollback(iteration=iteration, reason="gates failed"))
                out.status, out.errors = "rejected", check.summary
                out.files, out.diff = changed, working.diff()
                return out
            kept = keeper.keep(txn, working, checker.check, check,
                               label=commit_message(fixes), iteration=iteration)  # fmt: skip
        except Declined as declined:
            txn.rollback()
            self.bus.emit(TxnRollback(iteration=iteration, reason=f"user: {declined.decision}"))
            out.status, out.reason = "skipped", f"{declined.decision} at the checkpoint"
            return out
        except BaseException:
            txn.rollback()
            raise
        out.status, out.files, out.diff = "accepted", kept.files, kept.diff
        out.fixed = [p.render() for r in kept.check.results for p in r.fixed_problems]
        out.test_run = next((r.test_run for r in kept.check.results if r.test_run), None)
        return out
