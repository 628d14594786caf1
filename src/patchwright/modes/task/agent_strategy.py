"""The agent strategy: planner → coder → reviewer with real tools (see
``patchwright.agent.agent_solver``), for models that can drive tools."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from patchwright.agent.agent_solver import AgentOptions, AgentSolver
from patchwright.agent.memory import read_memory
from patchwright.agent.record import RunRecord
from patchwright.agent.role_runner import RoleRunner
from patchwright.agent.roles import Role
from patchwright.agent.session import Session
from patchwright.agent.tools import Tool, Workbench, builtin_tools
from patchwright.agent.working_copy import WorkingCopy
from patchwright.modes.task.approval import make_command_approver
from patchwright.modes.task.options import RunOptions
from patchwright.modes.task.prepare import Prepared, Ready
from patchwright.modes.task.setup import Workspace
from patchwright.workspace.transaction import Transaction


def build_agent(
    session: Session,
    ws: Workspace,
    opts: RunOptions,
    prep: Prepared,
    record: RunRecord,
    console: Console,
    external: dict[Role, list[Tool]] | None = None,
) -> Ready:
    working = WorkingCopy(sorted(prep.texts), ws.read_file, ws.confine, prep.protected)
    bench = Workbench(
        root=ws.root,
        working=working,
        sandbox=session.sandbox,
        check=prep.checker.check,
        index=lambda: session.index,
        approve_command=make_command_approver(console, yes=opts.yes),
        test_cmd=ws.test_cmd,
        command_timeout=session.command_timeout,
    )
    runner = RoleRunner(
        session.model, builtin_tools(bench), session.bus, external or {}, on_token=ws.on_token
    )
    solver = AgentSolver(
        runner,
        bench,
        session.bus,
        prep.approver(working.changed_paths),
        lambda: Transaction(ws.root),
    )
    runner.on_step = lambda: record.write_trajectory(_transcript(solver), [])
    memory = read_memory(ws.root)
    options = AgentOptions(
        opts.task,
        plan=opts.plan,
        max_rejections=opts.max_rejections,
        done=prep.done,
        failures=prep.failures,
        memory=memory.text,
        repo_map=ws.repo_map(opts.task),
        readonly=prep.protected,
    )
    return Ready(lambda: solver.solve(options), "agent")


def _transcript(solver: AgentSolver) -> list[dict[str, Any]]:
    return [
        {"agent_role": role, **message}
        for role, messages in solver.conversations.items()
        for message in messages
    ]
