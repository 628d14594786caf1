"""The terminal side of ``patchwright review``: settings, the session, the live lines, the
optional dashboard, the final report and the exit code."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console

from patchwright.agent.request import RunError
from patchwright.agent.session import open_session
from patchwright.config import ConfigError
from patchwright.events import (
    Event,
    EventBus,
    GateResult,
    ReviewAnalysis,
    ReviewCascade,
    ReviewFindings,
    ReviewIteration,
    ReviewOutcome,
    ReviewPhase,
    ReviewTarget,
)
from patchwright.interrupts import stop_on_signals
from patchwright.modes.review.checkpoint import CheckpointDesk
from patchwright.modes.review.files import ReviewPaths
from patchwright.modes.review.loop import run_review
from patchwright.modes.review.options import ReviewOptions, ReviewSummary
from patchwright.modes.review.state import ReviewState
from patchwright.trust_notice import settings_for

EXIT = {"finished": 0, "done": 0, "stopped": 1, "error": 1, "interrupted": 3}


class Dashboard(Protocol):
    url: str

    def close(self) -> None: ...


DashboardFactory = Callable[[ReviewState, CheckpointDesk], Dashboard]


class Printer:
    """One line per step of the loop, on the terminal."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, event: Event) -> None:
        print_ = self.console.print
        match event:
            case ReviewIteration():
                limit = f"/{event.limit}" if event.limit else ""
                self.console.rule(f"iteration {event.iteration}{limit}")
            case ReviewAnalysis():
                asked = f", {event.by_model} summarised by the model" if event.by_model else ""
                print_(f"[dim]project map: {event.path} ({event.files} files{asked})[/]")
            case ReviewPhase(phase="summarising"):
                print_(f"[dim]summarising {event.target} (it has no docstring)…[/]")
            case ReviewFindings():
                print_(f"[dim]findings: {event.total}; failing tests: {event.failing_tests}[/]")
            case ReviewTarget():
                reasons = "; ".join(event.reasons) or "best remaining"
                print_(f"[bold]target:[/] {event.path} [dim]({reasons})[/]")
            case GateResult():
                colour = {"passed": "green", "failed": "red"}.get(event.status, "dim")
                print_(f"  [{colour}]{event.gate}: {event.status}[/]")
            case ReviewOutcome():
                self._outcome(event)
            case ReviewCascade():
                print_(f"[yellow]cascade:[/] queued {', '.join(event.queued)}")

    def _outcome(self, event: ReviewOutcome) -> None:
        status = event.status
        colour = {"accepted": "green", "rejected": "red", "failed": "red"}.get(status, "yellow")
        why = event.rationale or event.reason
        commit = f" → {event.commit[:12]}" if event.commit else ""
        self.console.print(f"[{colour}]{status}[/] ({event.proposal}){commit} {why}", markup=True)


def _counts(data: dict[str, Any]) -> str:
    return ", ".join(f"{len(data[k])} {k}" for k in ("accepted", "rejected", "skipped", "failed"))


def one_line(summary: ReviewSummary) -> str:
    """``--quiet``'s whole output: the outcome, the proposals counted, the kept commits."""
    data = summary.to_json()
    kept = [(item["commit"] or "uncommitted")[:12] for item in data["accepted"]]
    return f"{summary.outcome}: {_counts(data)}" + (f" ({', '.join(kept)})" if kept else "")


def _report(console: Console, summary: ReviewSummary) -> None:
    data = summary.to_json()
    console.rule("review")
    counts = _counts(data)
    usage = summary.usage
    console.print(f"[bold]{summary.outcome}[/] after {summary.iterations} iteration(s): {counts}; "
                  f"{usage.usage.total_tokens} tokens, {summary.seconds:.0f}s"
                  + (f", ${usage.cost:.4f}" if usage.cost else ""))  # fmt: skip
    for item in data["accepted"]:
        console.print(f"  {(item['commit'] or 'uncommitted')[:12]}  {', '.join(item['files'])}")
    if summary.queue:
        console.print(f"cascade queue left: {', '.join(summary.queue)}")
    for note in summary.notes:
        console.print(f"note: {note}")
    console.print(f"{summary.reason}\n[dim]memory files: {summary.memory_dir}; "
                  f"run record: patchwright log {summary.run_id}[/]")  # fmt: skip


def execute(
    opts: ReviewOptions,
    *,
    model: str | None,
    record: Path | None,
    as_json: bool,
    quiet: bool,
    dashboard: DashboardFactory | None = None,
) -> int:
    """Run the review and report; returns the process exit code."""
    err = Console(stderr=True)
    console = Console(stderr=True, quiet=quiet) if as_json else Console(quiet=quiet)
    bus = EventBus()
    root = opts.repo.expanduser().resolve()
    paths = ReviewPaths.for_repo(root, in_repo=opts.memory_in_repo)
    state = ReviewState(paths.read)
    bus.subscribe(state.on_event)
    desk = CheckpointDesk(bus)
    board: Dashboard | None = None
    try:
        settings = settings_for(root if root.is_dir() else None, as_json=as_json)
        session = open_session(settings, opts.repo, model=model, record=record, bus=bus)
        if not quiet:
            bus.subscribe(Printer(console))
        if dashboard is not None:
            board = dashboard(state, desk)
            err.print(f"[bold]dashboard:[/] {board.url}  [dim](approve/skip need this link's "
                      "token; bound to this machine unless --host says otherwise)[/]")  # fmt: skip
        with stop_on_signals():
            summary = run_review(opts, session=session, console=console, desk=desk)
    except (RunError, ConfigError, OSError) as exc:
        if as_json:
            print(json.dumps({"outcome": "error", "error": str(exc)}))
        else:
            err.print(f"[red]error:[/] {exc}")
        return 2
    except KeyboardInterrupt:
        err.print("[yellow]interrupted[/] before the review started; nothing was changed")
        return 3
    finally:
        if board is not None:
            board.close()
    if as_json:
        ignored = {"ignored_settings": list(settings.ignored)} if settings.ignored else {}
        sys.stdout.write(json.dumps({**summary.to_json(), **ignored}) + "\n")
    elif quiet:
        print(one_line(summary))
    else:
        _report(console, summary)
    return EXIT[summary.outcome]
