"""``patchwright run``: one task, end to end — the definition of done, context, reply, edits,
gates, repair, commit — or the repository left exactly as it was."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rich.console import Console

from patchwright import interrupts
from patchwright.agent.checker import GateChecker
from patchwright.agent.commit_message import write_commit_message
from patchwright.agent.context import ContextRequest, approx_tokens, build_context
from patchwright.agent.criterion import Criterion, baseline_report, decide
from patchwright.agent.edit_format import choose_format, is_small_model
from patchwright.agent.loop import SolveOptions, Solver, SolveResult
from patchwright.agent.prompts import render
from patchwright.agent.record import RunRecord
from patchwright.agent.related_tests import is_test_path
from patchwright.agent.relevance import mentioned_files
from patchwright.agent.session import Session
from patchwright.agent.working_copy import WorkingCopy
from patchwright.config import Settings, load_settings
from patchwright.events import EventBus
from patchwright.llm import CapExceeded, Model
from patchwright.modes.approval import make_approver
from patchwright.modes.setup import (
    RunError,
    Workspace,
    open_session,
    open_workspace,
    recover_session,
)
from patchwright.verify import Baseline, take_baseline
from patchwright.workspace.transaction import Transaction, undo

Outcome = Literal["solved", "unverified", "failed", "error", "interrupted"]
# Candidates per iteration for small local models when --candidates is "auto" (measured:
# see benchmarks/tasks and the README); network models get one.
AUTO_CANDIDATES_LOCAL = 1


@dataclass
class RunOptions:
    repo: Path
    task: str
    model: str | None = None
    test_cmd: str | None = None
    done_when: list[str] = field(default_factory=list)
    max_iter: int = 4
    candidates: int | None = None  # None: auto
    edit_format: str = "auto"
    include: list[str] = field(default_factory=list)
    branch: bool = False
    no_git: bool = False
    no_commit: bool = False
    yes: bool = False
    approve_timeout: float | None = None
    push: bool = False
    pr: bool = False
    record: Path | None = None
    test_timeout: float = 180.0


@dataclass
class RunSummary:
    outcome: Outcome
    run_id: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    commit: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    reason: str = ""
    diff: str = ""
    first_try: bool = False
    edit_format: str = ""
    notes: list[str] = field(default_factory=list)
    gates: dict[str, str] = field(default_factory=dict)
    criterion: dict[str, Any] = field(default_factory=dict)
    retries: int = 0
    calls: int = 0
    candidates: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "iterations": self.iterations,
            "files_changed": self.files_changed,
            "commit": self.commit,
            "criterion": self.criterion,
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
            },
            "cost": round(self.cost, 6),
            "seconds": round(self.seconds, 3),
            "calls": self.calls,
            "retries": self.retries,
            "candidates": self.candidates,
            "reason": self.reason,
            "run_id": self.run_id,
        }


def _context_budget(model: Model, reply_tokens: int) -> int:
    window = max(model.context_window, 4096)
    budget = int(window * 0.6) - reply_tokens
    if model.name.startswith("local:"):
        budget = min(budget, 3000)  # prefill costs ~25 ms a token on 2 cores: keep prompts lean
    return max(1000, min(budget, 24000))


def candidates_for(requested: int | None, model_name: str) -> int:
    """``--candidates``: as asked, or (auto) the measured best for small local models."""
    if requested is not None:
        return max(1, requested)
    return AUTO_CANDIDATES_LOCAL if is_small_model(model_name) else 1


def _done_when_baseline(session: Session, commands: Sequence[str]) -> str:
    """How each ``--done-when`` command fails before any change (what done must fix)."""
    parts = []
    for cmd in commands:
        result = session.sandbox.run(cmd, cwd=session.root, timeout=session.command_timeout)
        if result.exit_code != 0:
            output = (result.stdout + "\n" + result.stderr).strip()
            parts.append(f"`{cmd}` exits {result.exit_code}:\n{output[-1500:]}")
    return "\n\n".join(parts)


@dataclass
class _Plan:
    """A run made ready: the solver, its options and what the run reports up front."""

    solver: Solver
    options: SolveOptions
    fmt: str
    criterion: Criterion


def _plan(
    session: Session, ws: Workspace, opts: RunOptions, console: Console, record: RunRecord
) -> _Plan:
    bus = session.bus
    bus.emit("baseline.start")
    baseline = take_baseline(
        ws.root, session.sandbox, test_cmd=ws.test_cmd, test_timeout=opts.test_timeout
    )
    texts = session.read_texts()
    criterion = decide(
        baseline, opts.task, texts, user_test_cmd=opts.test_cmd, done_when=opts.done_when
    )
    bus.emit("baseline.done", failing=len(baseline.failing_tests))
    bus.emit("criterion.decided", **criterion.to_json())
    failures = baseline_report(criterion, baseline, _done_when_baseline(session, opts.done_when))
    reply_tokens = 2048
    ctx = build_context(
        ws.root,
        ContextRequest(
            task=opts.task,
            texts=texts,
            budget_tokens=_context_budget(ws.model, reply_tokens),
            include=opts.include,
            failure_output=failures,
            index_ranked=ws.index_ranked(opts.task),
            repo_map=ws.repo_map(opts.task),
        ),
    )
    fmt = choose_format(opts.edit_format, ws.model.name, [f.text.count("\n") for f in ctx.files])
    bus.emit("context.built", files=ctx.paths, omitted=ctx.omitted, tokens=ctx.tokens, fmt=fmt)
    protected = _protected_tests(baseline, criterion, opts.task, sorted(texts))
    working = WorkingCopy(sorted(texts), ws.read_file, ws.confine, protected, ctx.paths)
    solver = Solver(
        model=ws.model,
        working=working,
        checker=GateChecker(
            ws.root,
            session.sandbox,
            baseline,
            bus,
            criterion,
            ws.test_cmd,
            opts.test_timeout,
            session.command_timeout,
        ),
        new_txn=lambda: Transaction(ws.root),
        bus=bus,
        approve=make_approver(
            console,
            yes=opts.yes,
            timeout=opts.approve_timeout,
            root=ws.root,
            paths=working.changed_paths,
        ),
        on_token=ws.on_token,
    )
    solver.on_step = lambda: record.write_trajectory(list(solver.messages), solver.actions)  # type: ignore[arg-type]
    unrelated = list(criterion.unrelated)
    solver.messages.extend(
        [
            {"role": "system", "content": render("system", fmt=fmt)},
            {
                "role": "user",
                "content": render(
                    "task",
                    task=opts.task,
                    reference=[f for f in ctx.files if f.path in protected],
                    files=[f for f in ctx.files if f.path not in protected],
                    omitted=ctx.omitted,
                    memory=ctx.memory,
                    memory_sources=ctx.memory_sources,
                    repo_map=ctx.repo_map,
                    failures=failures,
                    unrelated=unrelated[:10],
                    readonly=[p for p in protected if p not in ctx.paths],
                    fmt=fmt,
                ),
            },
        ]
    )
    options = SolveOptions(
        opts.task,
        fmt,
        opts.max_iter,
        reply_tokens=_reply_budget(fmt, [f.text for f in ctx.files if f.path not in protected]),
        candidates=candidates_for(opts.candidates, ws.model.name),
        done=criterion.describe() if criterion.defined else "",
        failures=failures,
    )
    return _Plan(solver, options, fmt, criterion)


_CHANGE_TESTS = re.compile(
    r"\b(?:update|change|rewrite|edit|add|write)\s+(?:the\s+|a\s+|new\s+)?"
    r"(?:unit\s+)?(?:tests?|specs?)\b(?![/.\w])",
    re.IGNORECASE,
)


def _reply_budget(fmt: str, editable_texts: list[str], cap: int = 2048) -> int:
    """Tokens a reply may use: whole files need room for the files shown (and a new one);
    edit blocks need far less. A bound keeps a small model that starts repeating itself from
    generating for minutes."""
    if fmt != "whole":
        return min(cap, 1024)
    shown = sum(approx_tokens(t) for t in editable_texts)
    return max(1024, min(cap, int(shown * 1.5) + 384))


def _protected_tests(
    baseline: Baseline, criterion: Criterion, task: str, paths: Sequence[str] = ()
) -> list[str]:
    """Files of the tests the criterion requires, test files the task names, and files the
    criterion's commands name: read-only unless the task asks to change tests (a model must
    not make a check pass by rewriting the check)."""
    if _CHANGE_TESTS.search(task):
        return []
    cases = baseline.tests.cases if baseline.tests else {}
    required = baseline.failing_tests if criterion.test_cmd else criterion.targets
    files = {cases[t].path for t in required if t in cases and cases[t].path}
    files.update(p for p in mentioned_files(task, paths) if is_test_path(p))
    commands = " ".join(c for c in (criterion.test_cmd, *criterion.done_when) if c)
    files.update(mentioned_files(commands, paths))
    return sorted(files)


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
            else write_commit_message(ws.model, opts.task, result.diff, bus=bus)
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
    plan = _plan(session, ws, opts, console, record)
    summary.edit_format, summary.candidates = plan.fmt, plan.options.candidates
    summary.criterion = plan.criterion.to_json()
    summary.notes.extend(plan.criterion.notes)
    result = plan.solver.solve(plan.options)
    summary.iterations, summary.reason = result.iterations, result.reason
    summary.first_try, summary.retries = result.first_try, result.retries
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
    on_token: Any = None,
    settings: Settings | None = None,
    session: Session | None = None,
) -> RunSummary:
    """Run one task; raises :class:`RunError` for usage/configuration problems (exit 2).

    A long-lived mode passes its ``session`` (one loaded model across tasks); otherwise one
    is built from ``settings`` (default: the layered config of the repository)."""
    started = time.monotonic()
    if session is None:
        root = opts.repo.expanduser().resolve()
        config = settings or load_settings(root if root.is_dir() else None)
        session = open_session(opts, config, bus or EventBus())
    else:
        recover_session(session)
    bus = session.bus
    ws = open_workspace(session, opts, on_token)
    record = RunRecord(ws.root, redact=ws.redact)
    summary = RunSummary("failed", record.run_id)
    stop_recording = bus.subscribe(record.on_event)
    session.start_task()
    bus.emit("run.start", run_id=record.run_id, task=opts.task, model=ws.model.name)
    try:
        _solve(session, ws, opts, console, summary, record)
    except KeyboardInterrupt as stop:
        by = f"stopped by {stop.args[0]}" if stop.args else "interrupted by the user"
        kept = f" after committing {summary.commit[:12]}" if summary.commit else ""
        summary.outcome = "interrupted"
        summary.reason = f"{by}{kept}; " + ("not pushed" if kept else "repository restored")
    except CapExceeded as exc:  # checked before each call: nothing is half-written
        summary.outcome, summary.reason = "failed", f"{exc.cap} cap reached: {exc}"
    except RunError:
        raise
    except Exception as exc:  # a crash must still leave a record and a restored repo
        summary.outcome, summary.reason = "error", f"{type(exc).__name__}: {exc}"
    finally:
        usage = session.usage
        summary.prompt_tokens = usage.usage.prompt_tokens
        summary.completion_tokens = usage.usage.completion_tokens
        summary.cost, summary.calls = usage.cost, usage.calls
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
