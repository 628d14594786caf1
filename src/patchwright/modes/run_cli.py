"""The terminal side of ``patchwright run``: settings, progress, approval, the final report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.syntax import Syntax

from patchwright.config import ConfigError, load_settings
from patchwright.events import EventBus
from patchwright.interrupts import stop_on_signals
from patchwright.modes.approval import ApprovalUnavailable, check_can_approve
from patchwright.modes.progress import Progress
from patchwright.modes.run import RunOptions, RunSummary, run_task
from patchwright.modes.setup import RunError

EXIT = {"solved": 0, "failed": 1, "error": 1, "interrupted": 3}


def _options(task: str, repo: Path, flags: dict[str, Any]) -> RunOptions:
    settings = load_settings(repo.resolve() if repo.is_dir() else None)
    return RunOptions(
        repo=repo,
        task=task,
        model=flags["model"] or settings.model.name,
        test_cmd=flags["test_cmd"] or settings.run.test_cmd,
        max_iter=flags["max_iter"] or settings.run.max_iter,
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
        fallback=list(settings.model.fallback),
        max_cost=settings.model.max_cost,
        test_timeout=flags["test_timeout"] or 180.0,
    )


def _report(console: Console, summary: RunSummary) -> None:
    if summary.diff and summary.outcome == "solved":
        console.print(Syntax(summary.diff, "diff", theme="ansi_dark", word_wrap=True))
    colour = {"solved": "green", "interrupted": "yellow"}.get(summary.outcome, "red")
    console.print(
        f"[bold {colour}]{summary.outcome}[/] in {summary.iterations} iteration(s), "
        f"{summary.seconds:.1f}s, {summary.prompt_tokens}+{summary.completion_tokens} tokens"
        + (f", ${summary.cost:.4f}" if summary.cost else "")
    )
    if summary.commit:
        console.print(f"committed {summary.commit[:12]}: {', '.join(summary.files_changed)}")
    elif summary.outcome == "solved":
        console.print(f"changed (not committed): {', '.join(summary.files_changed)}")
    else:
        console.print(f"{summary.reason or 'not solved'}; the repository is as it was.")
    for note in summary.notes:
        console.print(f"note: {note}")
    console.print(f"[dim]run record: patchwright log {summary.run_id}[/]")


def execute(task: str, *, repo: Path, as_json: bool, quiet: bool, **flags: Any) -> int:
    """Run the task and print the result; returns the process exit code."""
    console = Console(stderr=as_json, quiet=as_json)
    err = Console(stderr=True)
    try:
        opts = _options(task, repo, flags)
        check_can_approve(opts.yes, opts.approve_timeout)
        bus = EventBus()
        with (
            stop_on_signals(),
            Progress(Console(stderr=True), enabled=not (quiet or as_json)) as progress,
        ):
            bus.subscribe(progress.on_event)
            summary = run_task(opts, bus=bus, console=console, on_token=progress.on_token)
    except (RunError, ConfigError, ApprovalUnavailable) as exc:
        if as_json:
            print(json.dumps({"outcome": "error", "error": str(exc)}))
        else:
            err.print(f"[red]error:[/] {exc}")
        return 2
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/] before the run started; nothing was changed")
        return 3
    if as_json:
        sys.stdout.write(json.dumps(summary.to_json()) + "\n")
    elif quiet:
        print(
            f"{summary.outcome}: {summary.commit or ', '.join(summary.files_changed) or summary.reason}"
        )
    else:
        _report(console, summary)
    return EXIT[summary.outcome]
