"""The terminal side of ``patchwright run``: settings, progress, approval, the final report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from patchwright.config import ConfigError, Settings
from patchwright.events import Event, EventBus
from patchwright.interrupts import stop_on_signals
from patchwright.modes.run.progress import Progress
from patchwright.modes.task.approval import ApprovalUnavailable, check_can_approve
from patchwright.modes.task.options import STRATEGIES, RunOptions, RunSummary
from patchwright.modes.task.runner import run_task
from patchwright.modes.task.setup import RunError
from patchwright.trust_notice import settings_for

EXIT = {"solved": 0, "failed": 1, "error": 1, "interrupted": 3, "unverified": 4}


def _options(task: str, repo: Path, settings: Settings, flags: dict[str, Any]) -> RunOptions:
    candidates = flags.get("candidates") or "auto"
    return RunOptions(
        repo=repo,
        task=task,
        model=flags["model"],
        test_cmd=flags["test_cmd"] or settings.run.test_cmd,
        done_when=list(flags.get("done_when") or []),
        max_iter=flags["max_iter"] or settings.run.max_iter,
        candidates=None if candidates == "auto" else _positive(candidates, "--candidates"),
        strategy=_strategy(flags.get("strategy") or settings.agent.strategy),
        plan=settings.agent.plan and not flags.get("no_plan"),
        max_rejections=settings.agent.max_rejections,
        edit_format=flags["edit_format"] or settings.run.edit_format,
        include=list(flags["include"]),
        branch=flags["branch"] or settings.run.branch,
        no_git=flags["no_git"],
        no_commit=flags["no_commit"] or not settings.run.commit,
        yes=flags["yes"],
        approve_timeout=flags["approve_timeout"],
        push=flags["push"],
        pr=flags["pr"],
        record=flags["record"],
        test_timeout=flags["test_timeout"] or 180.0,
    )


def _strategy(value: str) -> str:
    if value not in STRATEGIES:
        raise RunError(f"--strategy {value}: use one of {', '.join(STRATEGIES)}")
    return value


def _positive(value: str, flag: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise RunError(f"{flag} {value}: give a positive number or auto")
    return number


class _Criterion:
    """Prints what "done" means as soon as it is decided, before the first edit."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        if event.kind == "criterion.decided":
            self.console.print(f"[bold]done when:[/] {event.data.get('description', '')}")
            for note in event.data.get("notes") or []:
                self.console.print(f"[dim]note: {note}[/]")


def _report(console: Console, summary: RunSummary) -> None:
    if summary.diff and summary.outcome in ("solved", "unverified"):
        console.print(Syntax(summary.diff, "diff", theme="ansi_dark", word_wrap=True))
    colour = {"solved": "green", "interrupted": "yellow", "unverified": "yellow"}.get(
        summary.outcome, "red"
    )
    console.print(
        f"[bold {colour}]{summary.outcome}[/] in {summary.iterations} iteration(s), "
        f"{summary.seconds:.1f}s, {summary.prompt_tokens}+{summary.completion_tokens} tokens"
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


def execute(task: str, *, repo: Path, as_json: bool, quiet: bool, **flags: Any) -> int:
    """Run the task and print the result; returns the process exit code."""
    console = Console(stderr=as_json, quiet=as_json)
    err = Console(stderr=True)
    try:
        settings = settings_for(repo.resolve() if repo.is_dir() else None, as_json=as_json)
        opts = _options(task, repo, settings, flags)
        check_can_approve(opts.yes, opts.approve_timeout)
        bus = EventBus()
        if not (quiet or as_json):
            bus.subscribe(_Criterion(err))
        with (
            stop_on_signals(),
            Progress(Console(stderr=True), enabled=not (quiet or as_json)) as progress,
        ):
            bus.subscribe(progress.on_event)
            summary = run_task(
                opts, bus=bus, console=console, on_token=progress.on_token, settings=settings
            )
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
