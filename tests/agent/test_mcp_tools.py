"""External tools over MCP, on a real stdio server written with the official SDK: its tools are
namespaced by server, offered only to the roles its configuration names, called through the
hub's one connection — and a server that cannot start is reported with what it said."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from patchwright.agent.mcp_tools import McpHub
from patchwright.agent.roles import by_role, toolbox
from patchwright.config import McpServerSettings
from patchwright.llm import ToolCall

SERVER = Path(__file__).parents[1] / "modes" / "run" / "mcp_notes_server.py"


@pytest.fixture
def hub() -> Iterator[McpHub]:
    notes = McpServerSettings(command=sys.executable, args=[str(SERVER)],
                              roles=["coder", "reviewer"], timeout=20)  # fmt: skip
    broken = McpServerSettings(command=sys.executable,
                               args=["-c", "import sys; sys.exit('no config file here')"])  # fmt: skip
    started = McpHub({"notes": notes, "broken": broken})
    errors = started.start()
    assert list(errors) == ["broken"] and "no config file here" in errors["broken"]
    yield started
    started.close()


def test_a_servers_tools_are_namespaced_and_go_to_the_roles_it_names(hub: McpHub) -> None:
    [(tool, roles)] = hub.tools()
    assert (tool.name, roles) == ("notes.shout", ["coder", "reviewer"])
    assert "text" in tool.parameters["properties"]
    grouped = by_role(hub.tools())
    assert [t.name for t in grouped["coder"]] == ["notes.shout"] and not grouped.get("planner")
    box = toolbox("coder", {}, grouped["coder"])
    assert box.specs()[0]["name"] == "notes__shout"  # what provider APIs accept
    said = box.call(ToolCall("c1", "notes__shout", {"text": "ship it"}))
    assert (said.ok, said.text) == (True, "SHIP IT!")


def test_a_failing_call_and_an_unconnected_server_are_observations(hub: McpHub) -> None:
    [(tool, _)] = hub.tools()
    missing = tool.run({})
    assert not missing.ok and missing.text
    down = hub.call("broken", "anything", {}, 5)
    assert (down.ok, down.text) == (False, "MCP server broken is not connected")
