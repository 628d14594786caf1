"""The agent's tools: one ``Tool`` protocol, thin wrappers over the packages the plumbing
commands use. Names and arguments are a contract (scripted trajectories call them)."""

from __future__ import annotations

from patchwright.agent.tools.base import FunctionTool, Observation, Tool, ToolBox, ToolError
from patchwright.agent.tools.bench import Workbench
from patchwright.agent.tools.control import control_tools
from patchwright.agent.tools.reading import reading_tools
from patchwright.agent.tools.running import running_tools
from patchwright.agent.tools.writing import writing_tools


def builtin_tools(bench: Workbench) -> dict[str, Tool]:
    """Every built-in tool by name, acting on ``bench``."""
    tools: list[Tool] = [
        *reading_tools(bench),
        *writing_tools(bench),
        *running_tools(bench),
        *control_tools(),
    ]
    return {t.name: t for t in tools}


__all__ = [
    "FunctionTool",
    "Observation",
    "Tool",
    "ToolBox",
    "ToolError",
    "Workbench",
    "builtin_tools",
]
