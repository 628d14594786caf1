"""One task, end to end — the definition of done, context, reply, edits,
gates, repair, commit — or the repository left exactly as it was. A gate that could not run
stops the run (outcome ``error``, the reason says which and what to do): nothing is kept that
was not checked."""

from __future__ import annotations

import time

from rich.console import Console

from patchwright import interrupts
from patchwright.agent.checker import GatesCouldNotRun
from patchwright.agent.commit_message import write_commit_message
from patchwright.agent.edit_format import is_small_model
from patchwright.agent.record import RunRecord
from patchwright.agent.session import Session
from patchwright.agent.solve_types import SolveResult
from patchwright.config import Settings, load_settings
from patchwright.events import EventBus
from patchwright.llm import CapExceeded, OnToken
from patchwright.modes.task.agent_strategy import build_agent
from patchwright.modes.task.options import RunOptions, RunSummary
from patchwright.modes.task.pipeline_strategy import build_pipeline
from patchwright.modes.task.prepare import prepare
from patchwright.modes.task.setup import (
    RunError,
    Workspace,
    open_session,
    open_workspace,
    recover_session,
)
from patchwright.workspace.undo import undo


def choose_strategy(requested: str, session: Session) -> str:
    """``auto``: the agent for models with native tool calls that are not small; the
    pipeline otherwise (a small model cannot drive tools reliably)."""
    if requested != "auto":
        return requested
    info = session.model.candidates[0].info
    return "agent" if info.tools and not is_small_model(session.model.name) else "pipeline"


def _keep(
    ws: Workspace, opts: RunOptions, result: SolveResult, summary: RunSummary, bus: EventBus
) -> None:
    """Commit the kept change (the model writes the message) and publish it. A stop
    before the commit lands undoes the change, so "interrupted" always means "as it was"."""
    try:
        interrupts.check()
        message = (
            ""
            if opts.no_commit
            else result.commit_message
            or write_commit_message(ws.model, opts.task, result.diff, bus=bus)
        )
        interrupts.check()
        if message:
            with interrupts.held():
                summary.commit = ws.commit(message, result.files_changed, summary.notes)
        summary.files_changed, summary.diff = result.files_changed, result.diff
        interrupts.check()
        if summary.commit:
            ws.publish(opts, message, summary.notes)
    except KeyboardInterrupt:
        if summary.commit is None:
            undo(ws.root, 1)
            bus.emit("txn.undo", reason="interrupted before the change was kept")
            summary.files_changed, summary.diff = [], ""
        raise


def _solve(
    session: Session, ws: Workspace, opts: RunOptions, console: Console, summary: RunSummary,
    record: RunRecord,
) -> None:  # fmt: skip
    prep = prepare(session, ws, opts, console)
    summary.criterion = prep.criterion.to_json()
    summary.notes.extend(prep.criterion.notes)
    strategy = choose_strategy(opts.strategy, session)
    session.bus.emit("strategy.chosen", strategy=strategy, requested=opts.strategy)
    if strategy == "agent":
        ready = build_agent(session, ws, opts, prep, record, console, session.external_tools())
    else:
        ready = build_pipeline(session, ws, opts, prep, record)
    summary.strategy, summary.edit_format, summary.candidates = (
        ready.strategy,
        ready.fmt,
        ready.candidates,
    )
    result = ready.solve()
    summary.iterations, summary.reason = result.iterations, result.reason
    summary.first_try, summary.retries = result.first_try, result.retries
    summary.steps, summary.role_usage = result.steps, result.role_usage
    if result.check is not None:
        summary.gates = result.check.gate_statuses
        if result.check.verdict is not None:
            summary.criterion.update(result.check.verdict.to_json())
    if result.outcome in ("solved", "unverified"):
        note = result.check.unproved_note() if result.check else None
        summary.notes.extend([note] if note else [])
        _keep(ws, opts, result, summary, session.bus)
        summary.outcome = result.outcome


def run_task(
    opts: RunOptions,
    *,
    bus: EventBus | None = None,
    console: Console,
    on_token: OnToken | None = None,
    settings: Settings | None = None,
    session: Session | None = None,
) -> RunSummary:
    """Run one task; raises :class:`RunError` for usage/configuration problems (exit 2).

    A long-lived mode passes its ``session`` (one loaded model across tasks); otherwise one
    is built from ``settings`` (default: the layered config of the repository)."""
    started = time.monotonic()
    own = session is None
    if session is None:
        root = opts.repo.expanduser().resolve()
        config = settings or load_settings(root if root.is_dir() else None)
        session = open_session(opts, config, bus or EventBus())
    else:
        recover_session(session)
    try:
        return _run(opts, session, console, on_token, started)
    finally:
        if own:
            session.close()


def _run(
    opts: RunOptions, session: Session, console: Console, on_token: OnToken | None, started: float
) -> RunSummary:
    bus = session.bus
    ws = open_workspace(session, opts, on_token)
    record = RunRecord(ws.root, redact=ws.redact)
    summary = RunSummary("failed", record.run_id)
    stop_recording = bus.subscribe(record.on_event)
    session.start_task()
    ignored = session.settings.ignored  # the repository config's untrusted keys, left out
    bus.emit("run.start", run_id=record.run_id, task=opts.task, model=ws.model.name,
             **({"ignored_settings": list(ignored)} if ignored else {}))  # fmt: skip
    try:
        _solve(session, ws, opts, console, summary, record)
    except KeyboardInterrupt as stop:
        by = f"stopped by {stop.args[0]}" if stop.args else "interrupted by the user"
        kept = f" after committing {summary.commit[:12]}" if summary.commit else ""
        summary.outcome = "interrupted"
        summary.reason = f"{by}{kept}; " + ("not pushed" if kept else "repository restored")
    except CapExceeded as exc:  # checked before each call: nothing is half-written
        summary.outcome, summary.reason = "failed", f"{exc.cap} cap reached: {exc}"
    except GatesCouldNotRun as exc:  # the change was rolled back: nothing unchecked is kept
        summary.outcome, summary.reason = "error", str(exc)
        summary.gates = exc.check.gate_statuses
    except RunError as exc:
        summary.outcome, summary.reason = "error", str(exc)
        raise
    except Exception as exc:  # a crash must still leave a record and a restored repo
        summary.outcome, summary.reason = "error", f"{type(exc).__name__}: {exc}"
    finally:
        usage = session.usage
        summary.prompt_tokens = usage.usage.prompt_tokens
        summary.completion_tokens = usage.usage.completion_tokens
        summary.cost, summary.calls = usage.cost, usage.calls
        summary.temperatures = [call.temperature for call in session.model.calls]
        summary.seconds = time.monotonic() - started
        bus.emit("run.end", **summary.to_json(), notes=summary.notes)
        record.write_summary(
            {
                **summary.to_json(),
                "diff": summary.diff,
                "edit_format": summary.edit_format,
                "first_try": summary.first_try,
                "notes": summary.notes,
                "gates": summary.gates,
                "task": opts.task,
                "model": ws.model.name,
            }
        )
        stop_recording()
    return summary
