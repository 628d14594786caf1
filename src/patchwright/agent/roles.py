"""Roles and their tools: the jail is this table, enforced in code by each role's ToolBox.

planner — reads, then ``submit_plan``; coder — reads, edits, runs, ``finish``; reviewer —
reads, ``run_tests``, then ``approve`` or ``reject``. External (MCP) tools go to the roles
their server's configuration names (the coder by default).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from patchwright.agent.tools.base import Tool, ToolBox

Role = Literal["planner", "coder", "reviewer"]
ROLES: tuple[Role, ...] = ("planner", "coder", "reviewer")

READ_ONLY = ("list_files", "find_file", "search", "read_file", "symbols", "locate")
ALLOWED: Mapping[Role, tuple[str, ...]] = {
    "planner": (*READ_ONLY, "submit_plan"),
    "coder": (*READ_ONLY, "edit", "write_file", "delete_file", "run", "run_tests", "finish"),
    "reviewer": (*READ_ONLY, "run_tests", "approve", "reject"),
}


def toolbox(role: Role, tools: Mapping[str, Tool], extra: Iterable[Tool] = ()) -> ToolBox:
    """The role's ToolBox: its allowed built-in tools plus the external tools given to it."""
    return ToolBox([*(tools[n] for n in ALLOWED[role] if n in tools), *extra])


def by_role(tools: Iterable[tuple[Tool, Iterable[Role]]]) -> dict[Role, list[Tool]]:
    """External tools grouped by the roles that may call them."""
    out: dict[Role, list[Tool]] = {}
    for tool, roles in tools:
        for role in roles:
            out.setdefault(role, []).append(tool)
    return out
