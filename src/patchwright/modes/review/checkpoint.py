"""The human checkpoint of the review loop (PyOB's post-LLM checkpoint).

A verified proposal waits here for an answer from whichever comes first: the terminal
(**a**pply, **e**dit in ``$EDITOR``, a**u**gment the instructions and regenerate, full
**d**iff in ``$PAGER``, **r**egenerate, **s**kip), the dashboard's approve / skip buttons
(accepted only with the run's token, checked by the dashboard), or the timeout, after
which ``--on-timeout`` decides. ``--yes`` applies verified proposals without waiting.
A change the user edited that fails the gates can never be applied.
"""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from patchwright.agent.solve_types import Approver, Decision
from patchwright.events import EventBus, ReviewCheckpoint, ReviewCheckpointResolved
from patchwright.modes.terminal.approval import read_answer

OnTimeout = Literal["apply", "skip"]
_POLL = 0.2


@dataclass
class Pending:
    """One proposal waiting for an answer."""

    id: str
    target: str
    kind: str
    rationale: str
    diff: str
    problems: str
    deadline: float | None  # epoch seconds; None: waits for an answer
    decision: Decision | None = None
    by: str | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def event(self) -> ReviewCheckpoint:
        """What the terminal and the dashboard are shown of it."""
        return ReviewCheckpoint(id=self.id, target=self.target, proposal=self.kind,
                                rationale=self.rationale, diff=self.diff[:20000],
                                problems=self.problems[:4000], deadline=self.deadline,
                                can_apply=not self.problems)  # fmt: skip


class CheckpointDesk:
    """Holds the pending checkpoint; the terminal, the dashboard and the timeout answer it.
    The first answer wins; later ones are refused."""

    def __init__(self, bus: EventBus) -> None:
        self.bus = bus
        self._lock = threading.Lock()
        self.pending: Pending | None = None
        self.remote = False  # a dashboard can answer too

    def open(
        self, *, target: str, kind: str, rationale: str, diff: str, problems: str,
        deadline: float | None,
    ) -> Pending:  # fmt: skip
        pending = Pending(secrets.token_hex(4), target, kind, rationale, diff, problems, deadline)
        with self._lock:
            self.pending = pending
        self.bus.emit(pending.event())
        return pending

    def resolve(self, decision: Decision, *, by: str, pending_id: str | None = None) -> str | None:
        """Answer the pending checkpoint; returns why the answer was refused, or None."""
        with self._lock:
            pending = self.pending
            if pending is None or pending.done.is_set():
                return "no checkpoint is waiting for an answer"
            if pending_id is not None and pending_id != pending.id:
                return "that checkpoint was already answered; a newer one is waiting"
            if decision == "apply" and pending.problems:
                return "this change fails the gates and cannot be applied"
            pending.decision, pending.by = decision, by
            pending.done.set()
            self.pending = None
        self.bus.emit(ReviewCheckpointResolved(id=pending.id, decision=decision, by=by))
        return None


@dataclass(frozen=True)
class CheckpointOptions:
    yes: bool = False
    timeout: float = 220.0
    on_timeout: OnTimeout = "apply"


@dataclass
class Proposal:
    """What the checkpoint shows beside the diff (set by the loop before it asks)."""

    target: str = ""
    kind: str = "bug"
    rationale: str = ""
    augment: list[str] = field(default_factory=list)  # the user's extra instructions


def make_checkpoint(
    console: Console,
    desk: CheckpointDesk,
    opts: CheckpointOptions,
    proposal: Proposal,
    *,
    root: Path,
    paths: Callable[[], Sequence[str]],
    interactive: bool | None = None,
) -> Approver:
    """The review loop's approver (see the module docstring)."""
    tty = sys.stdin.isatty() if interactive is None else interactive

    def approve(diff: str, problems: str = "") -> Decision:
        if opts.yes and not problems:
            desk.bus.emit(ReviewCheckpointResolved(id="", decision="apply", by="--yes"))
            return "apply"
        pending = desk.open(target=proposal.target, kind=proposal.kind,
                            rationale=proposal.rationale, diff=diff, problems=problems,
                            deadline=time.time() + opts.timeout)  # fmt: skip
        _show(console, pending, opts, tty, desk.remote)
        while not pending.done.is_set():
            left = (pending.deadline or 0) - time.time()
            if left <= 0:
                on_timeout: Decision = "skip" if problems else opts.on_timeout
                if desk.resolve(on_timeout, by="timeout", pending_id=pending.id) is None:
                    console.print(f"\n[dim]no answer in {opts.timeout:g}s: {on_timeout}[/]")
                break
            if not tty:
                pending.done.wait(min(_POLL * 5, left))
                continue
            answer = read_answer(min(_POLL, left))
            if answer is not None:
                _answer(console, desk, pending, answer, proposal, root, paths)
        assert pending.decision is not None
        if tty and pending.by == "dashboard":
            console.print(f"\n[dim]answered from the dashboard: {pending.decision}[/]")
        return pending.decision

    return approve


def _show(
    console: Console, pending: Pending, opts: CheckpointOptions, tty: bool, remote: bool
) -> None:
    console.print(f"\n[bold]Proposal for {pending.target}[/] ({pending.kind})")
    if pending.rationale:
        console.print(pending.rationale, markup=False)
    console.print(Syntax(pending.diff, "diff", theme="ansi_dark", word_wrap=True))
    if pending.problems:
        console.print("[bold red]Your edit fails the gates:[/]")
        console.print(pending.problems, markup=False)
    then = "skip" if pending.problems else opts.on_timeout
    if tty:
        console.print(
            _choices(pending) + f" [dim](after {opts.timeout:g}s: {then})[/] ",
            end="",
            highlight=False,
        )
    else:
        source = "the dashboard" if remote else "an answer (no terminal, no dashboard)"
        console.print(f"[dim]waiting {opts.timeout:g}s for {source}, then: {then}[/]")


def _choices(pending: Pending) -> str:
    apply = "" if pending.problems else "[a]pply / "
    return "[bold]?[/] " + escape(f"{apply}[e]dit / a[u]gment / [d]iff / [r]egenerate / [s]kip")


def _answer(
    console: Console,
    desk: CheckpointDesk,
    pending: Pending,
    answer: str,
    proposal: Proposal,
    root: Path,
    paths: Callable[[], Sequence[str]],
) -> None:
    decision: Decision | None = None
    if answer in ("a", "apply", "y", "yes", ""):
        decision = "apply"
    elif answer in ("s", "skip", "n", "no"):
        decision = "skip"
    elif answer in ("r", "regenerate"):
        decision = "regenerate"
    elif answer in ("u", "augment"):
        console.print("Instructions to add (one line): ", end="")
        extra = sys.stdin.readline().strip()
        if extra:
            proposal.augment.append(extra)
            decision = "regenerate"
    elif answer in ("e", "edit"):
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        subprocess.call([*shlex.split(editor), *[str(root / p) for p in paths()]])
        console.print("[dim]re-running the gates on your edit…[/]")
        decision = "edited"
    elif answer in ("d", "diff"):
        pager = os.environ.get("PAGER") or "less -R"
        subprocess.run(shlex.split(pager), input=pending.diff, text=True, check=False)
    if decision is not None:
        why = desk.resolve(decision, by="terminal", pending_id=pending.id)
        if why is not None:
            console.print(f"[red]{why}[/]")
    if not pending.done.is_set():
        console.print(_choices(pending) + " ", end="", highlight=False)
