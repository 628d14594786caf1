"""External tools over MCP (the official ``mcp`` SDK): each configured server is started once
(stdio ``command`` or streamable-HTTP ``url``), its tools are offered to the roles its
configuration names, namespaced ``SERVER.tool``, and every call runs with a timeout.

The SDK is asynchronous; the hub runs one event loop in a background thread that keeps each
server's connection open for the whole session, and the agent calls into it synchronously.
"""

from __future__ import annotations

import asyncio
import tempfile
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

from patchwright.agent.roles import ROLES, Role
from patchwright.agent.tools.base import Observation, Tool
from patchwright.config import McpServerSettings

START_SECONDS = 30.0


@dataclass(frozen=True)
class McpTool:
    """One tool of one server, callable like a built-in tool."""

    hub: McpHub
    server: str
    remote: str
    description: str
    parameters: Mapping[str, Any]
    timeout: float

    @property
    def name(self) -> str:
        return f"{self.server}.{self.remote}"

    def run(self, args: Mapping[str, Any]) -> Observation:
        return self.hub.call(self.server, self.remote, dict(args), self.timeout)


@dataclass
class _Server:
    settings: McpServerSettings
    client: Any = None
    tools: list[Any] = field(default_factory=list)
    stop: asyncio.Event | None = None
    error: str = ""
    errlog: TextIO = field(default_factory=lambda: _scratch_file())


class McpHub:
    """The configured MCP servers, connected on :meth:`start`, closed on :meth:`close`."""

    def __init__(self, servers: Mapping[str, McpServerSettings]) -> None:
        self._servers = {name: _Server(cfg) for name, cfg in servers.items()}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._tasks: list[Future[None]] = []

    def start(self) -> dict[str, str]:
        """Connect every server; returns the errors of those that could not start."""
        self._thread.start()
        for server in self._servers.values():
            ready: Future[None] = Future()
            self._tasks.append(
                asyncio.run_coroutine_threadsafe(self._serve(server, ready), self._loop)
            )
            try:
                ready.result(timeout=START_SECONDS)
            except Exception as exc:
                server.error = server.error or f"{type(exc).__name__}: {exc}"
        return {name: s.error for name, s in self._servers.items() if s.error}

    async def _serve(self, server: _Server, ready: Future[None]) -> None:
        from mcp import Client, StdioServerParameters, stdio_client

        cfg = server.settings
        target: Any = cfg.url
        if not target:  # the server's stderr goes to a file, read back when it fails
            params = StdioServerParameters(
                command=cfg.command or "", args=cfg.args, env=cfg.env or None
            )
            target = stdio_client(params, errlog=server.errlog)
        server.stop = asyncio.Event()
        try:
            async with Client(target) as client:
                server.client = client
                server.tools = list((await client.list_tools()).tools)
                ready.set_result(None)
                await server.stop.wait()
        except BaseException as exc:  # the SDK wraps failures in exception groups
            server.errlog.seek(0)
            said = server.errlog.read()[-500:].strip()
            server.error = _describe(exc) + (f"; the server said: {said}" if said else "")
            if not ready.done():
                ready.set_exception(RuntimeError(server.error))

    def tools(self) -> list[tuple[Tool, list[Role]]]:
        """Every tool of every connected server, with the roles allowed to call it."""
        out: list[tuple[Tool, list[Role]]] = []
        for name, server in self._servers.items():
            roles = [r for r in ROLES if r in server.settings.roles]
            for tool in server.tools if server.client is not None else []:
                mcp_tool = McpTool(self, name, tool.name, tool.description or "",
                                   dict(getattr(tool, "input_schema", None) or {}), server.settings.timeout)  # fmt: skip
                out.append((mcp_tool, roles))
        return out

    def call(self, server: str, tool: str, args: dict[str, Any], timeout: float) -> Observation:
        client = self._servers[server].client
        if client is None:
            return Observation(f"MCP server {server} is not connected", ok=False)
        future = asyncio.run_coroutine_threadsafe(client.call_tool(tool, args), self._loop)
        try:
            result = future.result(timeout=timeout)
        except TimeoutError:
            future.cancel()
            return Observation(f"{server}.{tool} gave no answer within {timeout:g}s", ok=False)
        except Exception as exc:
            return Observation(f"{server}.{tool} failed: {_describe(exc)}", ok=False)
        texts = [getattr(block, "text", "") or str(block) for block in result.content or []]
        return Observation(
            "\n".join(texts) or "(no output)", ok=not getattr(result, "is_error", False)
        )

    def close(self) -> None:
        for server in self._servers.values():
            if server.stop is not None:
                self._loop.call_soon_threadsafe(server.stop.set)
        for task in self._tasks:
            try:
                task.result(timeout=10)
            except Exception:
                continue
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)


def _scratch_file() -> TextIO:
    """Where a stdio server's stderr goes (closed with the hub's last reference)."""
    return cast(TextIO, tempfile.TemporaryFile("w+"))


def _describe(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)
    if inner:
        return _describe(inner[0])
    return f"{type(exc).__name__}: {exc}"
