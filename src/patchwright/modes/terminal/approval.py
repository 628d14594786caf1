"""Asking the person at the terminal: approve a verified change (apply / open in $EDITOR /
regenerate / skip), run a command the policy rates "ask".

``--yes`` approves every verified change; ``--approve-timeout S`` proceeds after S seconds
without an answer (PyOB's human checkpoint). Without a terminal and without either, the run
refuses to start rather than hang (see :func:`check_can_approve`). :class:`TerminalPerson` is
what ``run`` and chat give :func:`patchwright.agent.solve.solve`.
"""

from __future__ import annotations

import os
import select
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.syntax import Syntax

from patchwright.agent.request import Approval
from patchwright.agent.solve_types import Approver, Decision
from patchwright.agent.tools.bench import CommandApprover


class ApprovalUnavailable(Exception):
    """No way to ask: not a terminal, no --yes, no --approve-timeout."""


def check_can_approve(yes: bool, timeout: float | None) -> None:
    if yes or timeout is not None or sys.stdin.isatty():
        return
    raise ApprovalUnavailable(
        "standard input is not a terminal, so the change cannot be approved interactively; "
        "pass --yes to apply verified changes unattended, or --approve-timeout S"
    )


def read_answer(timeout: float | None) -> str | None:
    if timeout is not None:
        ready, _, _ = select.select([sys.stdin], [], [], timeout)
        if not ready:
            return None
    line = sys.stdin.readline()
    return line.strip().lower() if line else "s"


def make_approver(
    console: Console,
    *,
    yes: bool,
    timeout: float | None,
    root: Path,
    paths: Callable[[], Sequence[str]],
) -> Approver:
    """Shows the diff and asks (``paths``: the files the change touches, for $EDITOR)."""

    def approve(diff: str, problems: str = "") -> Decision:
        if yes:
            return "apply"
        if not sys.stdin.isatty() and timeout is not None:
            console.print(f"[dim]no terminal: approving after the {timeout:g}s timeout[/]")
            return "apply"
        console.print(Syntax(diff, "diff", theme="ansi_dark", word_wrap=True))
        if problems:
            console.print("[bold red]Your edit fails the gates:[/]")
            console.print(problems, markup=False)
        while True:
            answer = _ask(console, timeout, can_apply=not problems)
            if answer is None:
                console.print(f"\n[dim]no answer in {timeout:g}s: {_DEFAULT[bool(problems)]}[/]")
                return "skip" if problems else "apply"
            if answer in ("a", "apply", "y", "yes", "") and not problems:
                return "apply"
            if answer in ("a", "apply", "y", "yes", ""):
                console.print("[red]a change that fails the gates cannot be applied[/]")
                continue
            if answer in ("r", "regenerate"):
                return "regenerate"
            if answer in ("s", "skip", "n", "no"):
                return "skip"
            if answer in ("e", "edit"):
                editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
                subprocess.call([*shlex.split(editor), *[str(root / p) for p in paths()]])
                console.print("[dim]re-running the gates on your edit…[/]")
                return "edited"

    return approve


_DEFAULT = {False: "applying", True: "skipping (the edited change fails the gates)"}


def _ask(console: Console, timeout: float | None, *, can_apply: bool) -> str | None:
    choices = (
        "[a]pply / [e]dit / [r]egenerate / [s]kip"
        if can_apply
        else ("[e]dit again / [r]egenerate / [s]kip")
    )
    console.print(f"[bold]Apply this change?[/] {choices} ", end="")
    return read_answer(timeout)


def make_command_approver(console: Console, *, yes: bool) -> CommandApprover:
    """Asks before the agent runs a command the policy rates ``ask`` (installing packages,
    network tools, writes outside the repository...). Unattended (``--yes`` or no terminal)
    such commands do not run: approving changes is not approving arbitrary commands."""

    def approve(command: str, why: str) -> bool:
        if yes or not sys.stdin.isatty():
            return False
        console.print(
            f"[bold]The agent wants to run[/] {command!r} ({why}). Run it? [y/N] ", end=""
        )
        return (read_answer(None) or "n") in ("y", "yes")

    return approve


class TerminalPerson:
    """The person at the terminal (``console`` and standard input), as the request's
    ``approval`` settings say: a :class:`patchwright.agent.solve_types.Person`."""

    def __init__(self, console: Console, approval: Approval) -> None:
        self.console = console
        self.approval = approval

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver:
        yes, timeout = self.approval.yes, self.approval.timeout
        return make_approver(self.console, yes=yes, timeout=timeout, root=root, paths=paths)

    def command_approver(self) -> CommandApprover:
        return make_command_approver(self.console, yes=self.approval.yes)
