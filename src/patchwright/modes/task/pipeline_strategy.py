"""The pipeline strategy: patchwright chooses the files the model sees and the model answers
with edits — right for small local models, which cannot drive tools."""

from __future__ import annotations

from patchwright.agent.context import ContextRequest, approx_tokens, build_context
from patchwright.agent.edit_format import choose_format, is_small_model
from patchwright.agent.pipeline_solver import PipelineSolver, SolveOptions
from patchwright.agent.prompts import render
from patchwright.agent.record import RunRecord
from patchwright.agent.session import Session
from patchwright.agent.working_copy import WorkingCopy
from patchwright.llm import Model
from patchwright.modes.task.options import RunOptions
from patchwright.modes.task.prepare import Prepared, Ready
from patchwright.modes.task.setup import Workspace
from patchwright.workspace.transaction import Transaction

# Candidates per iteration for small local models when --candidates is "auto" (measured:
# see benchmarks/tasks and the README); network models get one.
AUTO_CANDIDATES_LOCAL = 1


def candidates_for(requested: int | None, model_name: str) -> int:
    """``--candidates``: as asked, or (auto) the measured best for small local models."""
    if requested is not None:
        return max(1, requested)
    return AUTO_CANDIDATES_LOCAL if is_small_model(model_name) else 1


def _context_budget(model: Model, reply_tokens: int) -> int:
    window = max(model.context_window, 4096)
    budget = int(window * 0.6) - reply_tokens
    if model.name.startswith("local:"):
        budget = min(budget, 3000)  # prefill costs ~25 ms a token on 2 cores: keep prompts lean
    return max(1000, min(budget, 24000))


def _reply_budget(fmt: str, editable_texts: list[str], cap: int = 2048) -> int:
    """Tokens a reply may use: whole files need room for the files shown (and a new one);
    edit blocks need far less. A bound keeps a small model that starts repeating itself from
    generating for minutes."""
    if fmt != "whole":
        return min(cap, 1024)
    shown = sum(approx_tokens(t) for t in editable_texts)
    return max(1024, min(cap, int(shown * 1.5) + 384))


def build_pipeline(
    session: Session, ws: Workspace, opts: RunOptions, prep: Prepared, record: RunRecord
) -> Ready:
    reply_tokens = 2048
    ctx = build_context(
        ws.root,
        ContextRequest(
            task=opts.task,
            texts=prep.texts,
            budget_tokens=_context_budget(ws.model, reply_tokens),
            include=opts.include,
            failure_output=prep.failures,
            index_ranked=ws.index_ranked(opts.task),
            repo_map=ws.repo_map(opts.task),
        ),
    )
    fmt = choose_format(opts.edit_format, ws.model.name, [f.text.count("\n") for f in ctx.files])
    session.bus.emit(
        "context.built", files=ctx.paths, omitted=ctx.omitted, tokens=ctx.tokens, fmt=fmt
    )
    protected = prep.protected
    working = WorkingCopy(sorted(prep.texts), ws.read_file, ws.confine, protected, ctx.paths)
    solver = PipelineSolver(
        model=ws.model,
        working=working,
        checker=prep.checker,
        new_txn=lambda: Transaction(ws.root),
        bus=session.bus,
        approve=prep.approver(working.changed_paths),
        on_token=ws.on_token,
    )
    solver.on_step = lambda: record.write_trajectory(list(solver.messages), solver.actions)  # type: ignore[arg-type]
    task = render(
        "task",
        task=opts.task,
        reference=[f for f in ctx.files if f.path in protected],
        files=[f for f in ctx.files if f.path not in protected],
        omitted=ctx.omitted,
        memory=ctx.memory,
        memory_sources=ctx.memory_sources,
        repo_map=ctx.repo_map,
        failures=prep.failures,
        unrelated=list(prep.criterion.unrelated)[:10],
        readonly=[p for p in protected if p not in ctx.paths],
        fmt=fmt,
    )
    solver.messages.extend(
        [
            {"role": "system", "content": render("system", fmt=fmt)},
            {"role": "user", "content": task},
        ]
    )
    options = SolveOptions(
        opts.task,
        fmt,
        opts.max_iter,
        reply_tokens=_reply_budget(fmt, [f.text for f in ctx.files if f.path not in protected]),
        candidates=candidates_for(opts.candidates, ws.model.name),
        done=prep.done,
        failures=prep.failures,
    )
    return Ready(lambda: solver.solve(options), "pipeline", fmt, options.candidates)
