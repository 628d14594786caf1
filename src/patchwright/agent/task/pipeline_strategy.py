"""The pipeline strategy wired for one task: patchwright chooses the files the model sees
(``--include`` first) and the model answers with edits in the asked format — right for small
local models, which cannot drive tools. Honours ``max_iter`` (iterations), ``candidates``
(replies sampled per iteration), ``edit_format`` and ``include``."""

from __future__ import annotations

from patchwright.agent.context import (
    ContextRequest,
    approx_tokens,
    build_context,
    index_ranked,
    repo_outline,
)
from patchwright.agent.edit_format import choose_format
from patchwright.agent.keeping import Keeper
from patchwright.agent.lang_examples import edit_language
from patchwright.agent.pipeline_options import REPLY_TOKENS, SolveOptions
from patchwright.agent.pipeline_solver import PipelineSolver
from patchwright.agent.prompts import render
from patchwright.agent.record import RunRecord
from patchwright.agent.request import TaskRequest
from patchwright.agent.session import Session
from patchwright.agent.solve_types import Person, Wired
from patchwright.agent.task.prepare import Groundwork, required_tests
from patchwright.agent.task.refocus import refocus_for
from patchwright.agent.task.repo import TaskRepo
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import ContextBuilt
from patchwright.llm import ModelInfo, OnToken
from patchwright.workspace.transaction import Transaction

# Candidates per iteration for small models when --candidates is "auto" (measured: see
# benchmarks/tasks and the README); other models get one.
AUTO_CANDIDATES_SMALL = 1


def candidates_for(requested: int | None, info: ModelInfo) -> int:
    """``--candidates``: as asked, or (auto) the measured best for the model's size."""
    if requested is not None:
        return max(1, requested)
    return AUTO_CANDIDATES_SMALL if info.small else 1


def context_budget(info: ModelInfo, reply_tokens: int) -> int:
    window = max(info.context_window, 4096)
    budget = int(window * 0.6) - reply_tokens
    if info.embedded:
        budget = min(budget, 3000)  # prefill costs ~25 ms a token on 2 cores: keep prompts lean
    return max(1000, min(budget, 24000))


def _reply_budget(fmt: str, editable_texts: list[str], cap: int = REPLY_TOKENS) -> int:
    """Tokens a reply may use: whole files need room for the files shown (and a new one);
    edit blocks need far less. A bound keeps a small model that starts repeating itself from
    generating for minutes."""
    if fmt != "whole":
        return min(cap, 1024)
    shown = sum(approx_tokens(t) for t in editable_texts)
    return max(1024, min(cap, int(shown * 1.5) + 384))


def build_pipeline(
    session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
    record: RunRecord, person: Person, on_token: OnToken | None = None,
) -> Wired:  # fmt: skip
    info, index = session.model.info, session.index
    ctx = build_context(
        repo.root,
        ContextRequest(
            task=request.task,
            texts=ground.texts,
            budget_tokens=context_budget(info, REPLY_TOKENS),
            include=request.include,
            failure_output=ground.failures,
            tests=ground.test_files,
            index_ranked=index_ranked(index, request.task),
            repo_map=repo_outline(index, request.task),
        ),
    )
    fmt = choose_format(request.edit_format, info.small, [f.text.count("\n") for f in ctx.files])
    session.bus.emit(ContextBuilt(files=ctx.paths, omitted=ctx.omitted, tokens=ctx.tokens, fmt=fmt))
    protected = ground.protected
    working = WorkingCopy(sorted(ground.texts), repo.read_file, repo.confine, protected, ctx.paths)
    approve = person.change_approver(repo.root, working.changed_paths)
    keeper = Keeper(repo.root, approve, session.bus, request.hand_back)
    solver = PipelineSolver(model=session.model, working=working, checker=ground.checker,
                            new_txn=lambda: Transaction(repo.root), bus=session.bus,
                            keeper=keeper, on_token=on_token,
                            on_step=record.write_trajectory)  # fmt: skip
    task = render(
        "task",
        task=request.task,
        reference=[f for f in ctx.files if f.path in protected],
        files=[f for f in ctx.files if f.path not in protected],
        omitted=ctx.omitted,
        memory=ctx.memory,
        memory_sources=ctx.memory_sources,
        repo_map=ctx.repo_map,
        failures=ground.failures,
        unrelated=list(ground.criterion.unrelated)[:10],
        readonly=[p for p in protected if p not in ctx.paths],
        fmt=fmt,
    )
    lang = edit_language(p for p in ctx.paths if p not in protected)
    solver.messages.extend([{"role": "system", "content": render("system", fmt=fmt, lang=lang)},
                            {"role": "user", "content": task}])  # fmt: skip
    editable = [p for p in ctx.paths if p not in protected]
    options = SolveOptions(
        request.task,
        fmt,
        request.limits.max_iter,
        reply_tokens=_reply_budget(fmt, [f.text for f in ctx.files if f.path not in protected]),
        candidates=candidates_for(request.limits.candidates, info),
        done=ground.done,
        failures=ground.failures,
        required=tuple(required_tests(ground.baseline, ground.criterion)),
        refocus=refocus_for(info, request.edit_format, request.task, ground, editable),
    )
    return Wired("pipeline", lambda: solver.solve(options), fmt, options.candidates)
