"""The agent strategy wired for one task: planner → coder → reviewer with real tools (see
:mod:`patchwright.agent.agent_solver`), for models that can drive tools. Honours ``max_iter``
(coder rounds), ``plan``, ``max_rejections``, ``edit_format`` (what the coder and its
``edit`` tool ask for; ``auto`` is SEARCH/REPLACE) and ``include`` (the files in the first
context); ``candidates`` above one is refused before it starts (:func:`check_fits`)."""

from __future__ import annotations

from patchwright.agent.agent_solver import AgentOptions, AgentSolver
from patchwright.agent.context import included_files, repo_outline
from patchwright.agent.keeping import Keeper
from patchwright.agent.memory import read_memory
from patchwright.agent.pipeline_options import REPLY_TOKENS
from patchwright.agent.record import RunRecord
from patchwright.agent.request import TaskRequest
from patchwright.agent.role_runner import RoleRunner
from patchwright.agent.session import Session
from patchwright.agent.solve_types import Person, Wired
from patchwright.agent.task.pipeline_strategy import context_budget
from patchwright.agent.task.prepare import Groundwork
from patchwright.agent.task.repo import TaskRepo
from patchwright.agent.tools import Workbench, builtin_tools
from patchwright.agent.working_copy import WorkingCopy
from patchwright.events import ContextBuilt
from patchwright.llm import Message, OnToken
from patchwright.workspace.transaction import Transaction


def build_agent(
    session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
    record: RunRecord, person: Person, on_token: OnToken | None = None,
) -> Wired:  # fmt: skip
    fmt = "diff" if request.edit_format == "auto" else request.edit_format
    working = WorkingCopy(sorted(ground.texts), repo.read_file, repo.confine, ground.protected)
    bench = Workbench(
        root=repo.root,
        working=working,
        sandbox=session.sandbox,
        check=ground.checker.check,
        formatted=ground.checker.formatted,
        index=lambda: session.index,
        approve_command=person.command_approver(),
        test_cmd=repo.test_cmd,
        command_timeout=session.command_timeout,
        test_timeout=request.limits.test_timeout,
        edit_format=fmt,
    )
    conversations: dict[str, list[Message]] = {}
    runner = RoleRunner(session.model, builtin_tools(bench), session.bus,
                        session.external_tools(), on_token=on_token,
                        on_step=lambda: record.write_trajectory(_transcript(conversations), []))  # fmt: skip
    keeper = Keeper(repo.root, person.change_approver(repo.root, working.changed_paths),
                    session.bus, request.hand_back)  # fmt: skip
    solver = AgentSolver(runner, bench, session.bus, keeper, lambda: Transaction(repo.root),
                         conversations=conversations)  # fmt: skip
    budget = context_budget(session.model.info, REPLY_TOKENS) // 2
    files, omitted = included_files(ground.texts, request.include, budget)
    limits = request.limits
    options = AgentOptions(
        request.task,
        max_iter=limits.max_iter,
        plan=limits.plan,
        max_rejections=limits.max_rejections,
        done=ground.done,
        failures=ground.failures,
        memory=read_memory(repo.root).text,
        repo_map=repo_outline(session.index, request.task),
        readonly=ground.protected,
        fmt=fmt,
        files=files,
        omitted=omitted,
    )
    if request.include:
        session.bus.emit(ContextBuilt(files=[f.path for f in files], omitted=omitted, fmt=fmt))
    return Wired("agent", lambda: solver.solve(options), fmt)


def _transcript(conversations: dict[str, list[Message]]) -> list[dict[str, object]]:
    return [
        {"agent_role": role, **message}
        for role, messages in conversations.items()
        for message in messages
    ]
