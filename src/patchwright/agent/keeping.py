"""Keeping a verified change — the one path both strategies take.

The person is shown the diff: apply, edit, regenerate or skip. An edit of their own is taken
from disk, written through the same transaction, checked again and shown again — a change is
never kept unchecked, and one that fails the gates cannot be applied. "apply" commits the
transaction under ``interrupts.held()`` (a stop from then on is raised at the caller's next
check, with the change kept); a request that hands its change back rolls the transaction
back instead and returns the change's bytes. Anything else raises :class:`Declined`, and the
strategy decides what a skip or a regenerate means for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from patchwright import interrupts
from patchwright.agent.checker import Check
from patchwright.agent.solve_types import Approver, Changes, Txn
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import ApprovalEdited, EventBus, TxnCommit, TxnHandedBack

CheckFn = Callable[[Sequence[str]], Check]


class Declined(Exception):
    """The person did not take the change: ``decision`` is "skip" or "regenerate"; ``check``
    is the last check made (of the person's own edit, when they made one)."""

    def __init__(self, decision: Literal["skip", "regenerate"], check: Check) -> None:
        super().__init__(decision)
        self.decision = decision
        self.check = check


@dataclass(frozen=True)
class Kept:
    files: list[str]
    diff: str
    changes: Changes  # the new bytes per file (None: deleted)
    check: Check  # the check the kept change passed
    undo_id: str | None  # None: handed back, the repository as it was


def write_change(txn: Txn, root: Path, working: WorkingCopy) -> None:
    """Mirror the working copy to disk in ``txn`` (a file changed back is restored too)."""
    staged = {
        path: data
        for path, data in working.touched().items()
        if data is not None or (root / path).exists()
    }
    txn.stage(staged)
    txn.write()


@dataclass(frozen=True)
class Keeper:
    """How a task keeps its changes: where, who approves, and whether it hands them back."""

    root: Path
    approve: Approver
    bus: EventBus
    hand_back: bool = False

    def keep(
        self, txn: Txn, working: WorkingCopy, check_fn: CheckFn, check: Check, *, label: str,
        iteration: int | None = None,
    ) -> Kept:  # fmt: skip
        """Ask, take the person's edit, re-check; keep the change (or raise ``Declined``).
        ``check``: the passing check of the change as written in ``txn``."""
        check = self._approved(txn, working, check_fn, check, iteration)
        kept = Kept(working.changed_paths(), working.diff(), working.changes(), check, None)
        interrupts.check()  # a stop whose KeyboardInterrupt was swallowed keeps nothing
        if self.hand_back:
            txn.rollback()
            self.bus.emit(TxnHandedBack(paths=kept.files, iteration=iteration))
            return kept
        with interrupts.held():  # a stop from here on is raised by the caller's next check
            undo_id = txn.commit(label[:200])
        self.bus.emit(TxnCommit(undo=undo_id, paths=kept.files, iteration=iteration))
        return Kept(kept.files, kept.diff, kept.changes, check, undo_id)

    def _approved(
        self, txn: Txn, working: WorkingCopy, check_fn: CheckFn, check: Check,
        iteration: int | None,
    ) -> Check:  # fmt: skip
        problems = ""
        while True:
            decision = self.approve(working.diff(), problems)
            if decision != "edited":
                break
            working.absorb(working.changed_paths())
            if not working.changes():
                raise Declined("skip", check)  # the person undid the whole change
            write_change(txn, self.root, working)
            check = check_fn(working.changed_paths())
            check.require_verdicts()
            problems = "" if check.ok else check.summary
            self.bus.emit(ApprovalEdited(ok=check.ok, diff=working.diff(),
                                         problems=problems[:2000], iteration=iteration))  # fmt: skip
        if decision == "apply" and not problems:
            return check
        raise Declined("regenerate" if decision == "regenerate" else "skip", check)
