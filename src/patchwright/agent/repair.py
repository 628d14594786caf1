"""What the model is told after a reply fails: the repair request for a change that was
written and rejected, and the feedback for a reply that held no usable edit.

A rejected change's request repeats the goal, says what "done" means and shows only what
failed: the check's summary, the lines of the change its errors point at, the definitions it
deleted that the code still uses — and, apart from what failed, how the edit was applied (an
import it added, say: polyglot Go octal's was listed under "What failed:"). A change that made
most of the failing checks pass is told how close it came (``progress.closing_in``), so that
its repair keeps what it fixed; one whose failing test now stops at another check than before
is told which way it moved (``check_moves``). Either kind of progress keeps the change's
conversation for its repair (``pipeline_solver``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from patchwright.agent.check_moves import check_moved, stopped_later
from patchwright.agent.checker import Check
from patchwright.agent.pipeline_options import SolveOptions
from patchwright.agent.pointed_lines import rejection_report
from patchwright.agent.progress import closing_in
from patchwright.agent.prompts import render


@dataclass(frozen=True)
class Repair:
    """A rejected change's repair request; ``report`` is what a fresh start is told (the
    failure, without the change), ``closer`` how close the change came, if it did."""

    prompt: str
    report: str
    closer: tuple[int, int] | None
    further: int | None = None  # the later line the failing test now stops at

    @property
    def progress(self) -> tuple[str, int] | None:
        """How far the change came, to compare with another change's of the same kind: the
        checks it made pass, or the line its failing test got to."""
        if self.closer is not None:
            return "checks", self.closer[0]
        return None if self.further is None else ("line", self.further)

    def came_closer(self, before: tuple[str, int] | None) -> bool:
        """Whether the change made progress (``before``: that of the change it repaired, if
        any), and more of the same kind than that one: its repair stays in its conversation
        while each comes closer."""
        now = self.progress
        if before is None or now is None:
            return now is not None
        return now[0] == before[0] and now[1] > before[1]


def repair_for(
    check: Check,
    opts: SolveOptions,
    goal: str,
    files: tuple[Mapping[str, str | None], Mapping[str, str | None]],
    notes: Sequence[str],
    tests: Mapping[str, str | None] | None = None,
) -> Repair:
    """The request that follows ``check``'s rejection of a change (``files``: the changed
    files' texts before and after it; ``tests``: the read-only tests', for the lines the
    failure points at)."""
    before, after = files
    report, lost = rejection_report(check.summary, before, after, tests)
    closer = (closing_in(opts.failures, report) or _fewer_failing(check, opts.required)
              if check.gates_ok else None)  # fmt: skip
    moved = check_moved(opts.failures, report) if check.gates_ok else ""
    further = stopped_later(opts.failures, report) if check.gates_ok and not closer else None
    prompt = render(
        "repair",
        task=goal,
        failures="\n".join(x for x in (report, *lost, moved) if x),
        notes=list(notes),
        fmt=opts.fmt,
        done=opts.done,
        criterion_failed=check.gates_ok,
        definition=opts.definition,
        closer=closer,
    )
    return Repair(prompt, report, closer, further)


def _fewer_failing(check: Check, required: Sequence[str]) -> tuple[int, int] | None:
    """``(fixed, failing)`` when the tests still failing after the change are at most half of
    those it had to make pass, all among them — counted by test, where the report's places
    cannot be (a jest report lists five failing tests, then "... and 5 more"; polyglot
    JavaScript binary's second reply passed 9 of 10 and the fresh start after it lost that)."""
    left = set(check.verdict.remaining) if check.verdict is not None else set()
    if len(required) < 2 or not left or not left < set(required) or 2 * len(left) > len(required):
        return None
    return len(required) - len(left), len(required)


def no_edits_feedback(
    feedback: str, opts: SolveOptions, *, cut_off: bool, protected: Sequence[str],
    looped: str = "",
) -> str:  # fmt: skip
    """The answer to a reply that held no edit that could be read (``feedback``: its errors,
    one ``- `` line each), with the format asked for shown again; ``looped``: what a reply
    stopped as it looped kept repeating."""
    errors = [e.removeprefix("- ") for e in feedback.splitlines() if e]
    return render(
        "no_edits",
        fmt=opts.fmt,
        errors=errors,
        cut_off=cut_off,
        looped=looped,
        limit=opts.reply_tokens,
        protected=sorted(protected),
        definition=opts.definition,
        lang=opts.definition_lang,
    )
