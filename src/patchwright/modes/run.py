"""``patchwright run``: one task, end to end — context, reply, edits, gates, repair, commit —
or the repository left exactly as it was."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from rich.console import Console

from patchwright import interrupts
from patchwright.agent.commit_message import write_commit_message
from patchwright.agent.context import ContextRequest, approx_tokens, build_context
from patchwright.agent.edit_format import choose_format
from patchwright.agent.loop import SolveOptions, Solver
from patchwright.agent.prompts import render
from patchwright.agent.record import RunRecord
from patchwright.agent.relevance import mentioned_files
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import Event, EventBus
from patchwright.llm import Model
from patchwright.modes.approval import make_approver
from patchwright.modes.checker import GateChecker, target_tests
from patchwright.modes.setup import RunError, Workspace, open_workspace, read_repo_texts
from patchwright.sandbox import Sandbox
from patchwright.verify import take_baseline
from patchwright.workspace.transaction import Transaction, undo

Outcome = Literal["solved", "failed", "error", "interrupted"]


@dataclass
class RunOptions:
    repo: Path
    task: str
    model: str = "local:qwen2.5-coder-1.5b"
    test_cmd: str | None = None
    max_iter: int = 4
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
    fallback: list[str] = field(default_factory=list)
    max_cost: float | None = None
    context_tokens: int | None = None
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

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "iterations": self.iterations,
            "files_changed": self.files_changed,
            "commit": self.commit,
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
            },
            "cost": round(self.cost, 6),
            "seconds": round(self.seconds, 3),
            "run_id": self.run_id,
        }


class _Usage:
    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary

    def __call__(self, event: Event) -> None:
        if event.kind == "model.reply":
            self.summary.prompt_tokens += int(event.data.get("prompt_tokens") or 0)
            self.summary.completion_tokens += int(event.data.get("completion_tokens") or 0)
            self.summary.cost += float(event.data.get("cost") or 0.0)


def _context_budget(model: Model, opts: RunOptions, reply_tokens: int) -> int:
    if opts.context_tokens:
        return opts.context_tokens
    window = max(model.context_window, 4096)
    budget = int(window * 0.6) - reply_tokens
    if model.name.startswith("local:"):
        budget = min(budget, 3000)  # prefill costs ~25 ms a token on 2 cores: keep prompts lean
    return max(1000, min(budget, 24000))


def _solve(
    ws: Workspace, opts: RunOptions, bus: EventBus, console: Console, record: RunRecord
) -> tuple[Solver, Any, str]:
    sandbox = Sandbox(ws.root)
    bus.emit("baseline.start")
    baseline = take_baseline(ws.root, sandbox, test_cmd=ws.test_cmd, test_timeout=opts.test_timeout)
    bus.emit("baseline.done", failing=len(ws.baseline_failures(baseline)))
    texts = read_repo_texts(ws.root)
    reply_tokens = 2048
    req = ContextRequest(
        task=opts.task,
        texts=texts,
        budget_tokens=_context_budget(ws.model, opts, reply_tokens),
        include=opts.include,
        failure_output=ws.failure_output(baseline),
        index_ranked=ws.index_ranked(opts.task),
        repo_map=ws.repo_map(opts.task),
    )
    ctx = build_context(ws.root, req)
    fmt = choose_format(opts.edit_format, ws.model.name, [t.count("\n") for t in ctx_texts(ctx)])
    bus.emit("context.built", files=ctx.paths, omitted=ctx.omitted, tokens=ctx.tokens, fmt=fmt)
    targets = target_tests(baseline, opts.task)
    protected = _protected_tests(baseline, targets, opts.task, sorted(texts))
    working = WorkingCopy(sorted(texts), ws.read_file, ws.confine, protected, ctx.paths)
    solver = Solver(
        model=ws.model,
        working=working,
        checker=GateChecker(
            ws.root, sandbox, baseline, bus, ws.test_cmd, targets, opts.test_timeout
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
                    failures=ws.failure_output(baseline)[-3000:],
                    readonly=[p for p in protected if p not in ctx.paths],
                    fmt=fmt,
                ),
            },
        ]
    )
    budget = _reply_budget(fmt, [f.text for f in ctx.files if f.path not in protected])
    return solver, SolveOptions(opts.task, fmt, opts.max_iter, reply_tokens=budget), fmt


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
    baseline: Any, targets: set[str], task: str, paths: Sequence[str] = ()
) -> list[str]:
    """Files of the target tests, and test files the task names: read-only unless the task
    asks to change tests (a model must not make a check pass by rewriting the check)."""
    if _CHANGE_TESTS.search(task):
        return []
    cases = baseline.tests.cases if baseline.tests else {}
    files = {cases[t].path for t in targets if t in cases and cases[t].path}
    files.update(p for p in mentioned_files(task, paths) if is_test_file(p))
    return sorted(files)


def is_test_file(path: str) -> bool:
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (
        name.startswith("test_")
        or name.endswith(("_test.py", ".test.js", ".test.ts", ".spec.js", ".spec.ts"))
        or any(part in ("test", "tests", "spec") for part in parts[:-1])
    )


def _gate_statuses(checker: Any) -> dict[str, str]:
    last = getattr(checker, "last", None)
    return {r.name: r.status for r in getattr(last, "results", [])}


def _unverified(checker: Any) -> list[str]:
    """Say so when a solution was not proved by tests: "solved" must not overclaim."""
    last = getattr(checker, "last", None)
    tests = next((r for r in getattr(last, "results", []) if r.name == "tests"), None)
    if tests is None or tests.status != "skipped":
        return []
    return [
        f"no tests ran ({tests.reason}); the change passed the syntax and lint gates only, "
        "so review it (or pass --test-cmd) before relying on it"
    ]


def ctx_texts(ctx: Any) -> list[str]:
    return [f.text for f in ctx.files]


def _keep(ws: Workspace, opts: RunOptions, result: Any, summary: RunSummary, bus: EventBus) -> None:
    """Commit the verified change (the model writes the message) and publish it. A stop
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


def run_task(
    opts: RunOptions, *, bus: EventBus, console: Console, on_token: Any = None
) -> RunSummary:
    """Run one task; raises :class:`RunError` for usage/configuration problems (exit 2)."""
    started = time.monotonic()
    ws = open_workspace(opts, bus, on_token)
    record = RunRecord(ws.root, redact=ws.redact)
    summary = RunSummary("failed", record.run_id)
    bus.subscribe(record.on_event)
    bus.subscribe(_Usage(summary))
    bus.emit("run.start", run_id=record.run_id, task=opts.task, model=ws.model.name)
    try:
        solver, solve_opts, summary.edit_format = _solve(ws, opts, bus, console, record)
        result = solver.solve(solve_opts)
        summary.iterations, summary.reason = result.iterations, result.reason
        summary.first_try = result.first_try
        if result.outcome == "solved":
            summary.notes.extend(_unverified(solver.checker))
            summary.gates = _gate_statuses(solver.checker)
            _keep(ws, opts, result, summary, bus)
            summary.outcome = "solved"
    except KeyboardInterrupt as stop:
        by = f"stopped by {stop.args[0]}" if stop.args else "interrupted by the user"
        kept = f" after committing {summary.commit[:12]}" if summary.commit else ""
        summary.outcome = "interrupted"
        summary.reason = f"{by}{kept}; " + ("not pushed" if kept else "repository restored")
    except RunError:
        raise
    except Exception as exc:  # a crash must still leave a record and a restored repo
        summary.outcome, summary.reason = "error", f"{type(exc).__name__}: {exc}"
    finally:
        summary.seconds = time.monotonic() - started
        bus.emit("run.end", **summary.to_json(), reason=summary.reason, notes=summary.notes)
        record.write_summary(
            {
                **summary.to_json(),
                "reason": summary.reason,
                "diff": summary.diff,
                "edit_format": summary.edit_format,
                "notes": summary.notes,
                "gates": summary.gates,
                "task": opts.task,
                "model": ws.model.name,
            }
        )
    return summary
