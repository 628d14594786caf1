"""The terminal side of ``patchwright run``: the request from settings and flags, the
session, progress, approval, then :func:`patchwright.agent.solve.solve`; the final report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from patchwright.agent.request import Overrides, RunError, build_request
from patchwright.agent.session import open_session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import SolveResult
from patchwright.config import ConfigError
from patchwright.events import CriterionDecided, Event, EventBus
from patchwright.interrupts import stop_on_signals
from patchwright.modes.run.progress import Progress
from patchwright.modes.terminal.approval import (
    ApprovalUnavailable,
    TerminalPerson,
    check_can_approve,
)
from patchwright.trust_notice import settings_for

EXIT = {"solved": 0, "failed": 1, "error": 1, "interrupted": 3, "unverified": 4}


class _Criterion:
    """Prints what "done" means as soon as it is decided, before the first edit."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        if isinstance(event, CriterionDecided):
            self.console.print(f"[bold]done when:[/] {event.description}")
            for note in event.notes:
                self.console.print(f"[dim]note: {note}[/]")


def _report(console: Console, summary: SolveResult) -> None:
    if summary.diff and summary.outcome in ("solved", "unverified"):
        console.print(Syntax(summary.diff, "diff", theme="ansi_dark", word_wrap=True))
    colour = {"solved": "green", "interrupted": "yellow", "unverified": "yellow"}.get(
        summary.outcome, "red"
    )
    console.print(
        f"[bold {colour}]{summary.outcome}[/] in {summary.iterations} iteration(s), "
        f"{summary.seconds:.1f}s, {summary.prompt_tokens}+{summary.completion_tokens} tokens"
        + (" (estimated: the server counted none)" if summary.tokens_estimated else "")
        + (f", ${summary.cost:.4f}" if summary.cost else "")
    )
    if summary.commit:
        console.print(f"committed {summary.commit[:12]}: {', '.join(summary.files_changed)}")
    elif summary.outcome in ("solved", "unverified"):
        console.print(f"changed (not committed): {', '.join(summary.files_changed)}")
    else:
        reason = escape(summary.reason or "not solved")  # a tool's "[misc]" is not markup
        console.print(f"{reason}; the repository is as it was.")
    for note in summary.notes:
        console.print(f"note: {escape(note)}")
    console.print(f"[dim]run record: patchwright log {summary.run_id}[/]")


def execute(
    task: str,
    *,
    repo: Path,
    overrides: Overrides,
    model: str | None = None,
    record: Path | None = None,
    as_json: bool = False,
    quiet: bool = False,
) -> int:
    """Run the task and print the result; returns the process exit code. ``model`` and
    ``record`` (a JSONL file of the model's replies) choose the session's model."""
    console = Console(stderr=as_json, quiet=as_json)
    err = Console(stderr=True)
    try:
        settings = settings_for(repo.resolve() if repo.is_dir() else None, as_json=as_json)
        request = build_request(task, settings, overrides)
        check_can_approve(request.approval.yes, request.approval.timeout)
        bus = EventBus()
        if not (quiet or as_json):
            bus.subscribe(_Criterion(err))
        with (
            stop_on_signals(),
            Progress(Console(stderr=True), enabled=not (quiet or as_json)) as progress,
        ):
            bus.subscribe(progress.on_event)
            session = open_session(settings, repo, model=model, record=record, bus=bus)
            try:
                summary = solve(session, request, person=TerminalPerson(console, request.approval),
                                on_token=progress.on_token)  # fmt: skip
            finally:
                session.close()
    except (RunError, ConfigError, ApprovalUnavailable) as exc:
        if as_json:
            print(json.dumps({"outcome": "error", "error": str(exc)}))
        else:
            err.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/] before the run started; nothing was changed")
        return 3
    if as_json:
        ignored = {"ignored_settings": list(settings.ignored)} if settings.ignored else {}
        sys.stdout.write(json.dumps({**summary.to_json(), **ignored}) + "\n")
    elif quiet:
        print(
            f"{summary.outcome}: {summary.commit or ', '.join(summary.files_changed) or summary.reason}"
        )
    else:
        _report(console, summary)
    return EXIT[summary.outcome]
