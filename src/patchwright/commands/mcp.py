"""``patchwright mcp list``: the configured MCP servers and the tools each offers."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    mcp = typer.Typer(help="External tools over MCP ([mcp.servers.NAME] in the config).")
    app.add_typer(mcp, name="mcp")

    @mcp.command("list")
    def list_command(
        repo: Path = typer.Option(Path("."), "--repo", help="Repository (for its settings)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Start each configured server, list its tools (as SERVER.tool) and the roles that
        may call them, then stop it. Exit 1 when a server cannot start."""
        from patchwright.agent.mcp_tools import McpHub
        from patchwright.config import ConfigError
        from patchwright.trust_notice import settings_for

        try:
            root = repo.resolve() if repo.is_dir() else None
            servers = settings_for(root, as_json=as_json).mcp.servers
        except ConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        if not servers:
            typer.echo("no MCP servers configured; add [mcp.servers.NAME] with command/args or url")
            return
        hub = McpHub(servers)
        try:
            errors = hub.start()
            tools = [(t.name, t.description, roles) for t, roles in hub.tools()]
        finally:
            hub.close()
        if as_json:
            payload = {
                "tools": [{"name": n, "description": d, "roles": r} for n, d, r in tools],
                "errors": errors,
            }
            typer.echo(json.dumps(payload))
        else:
            for name, description, roles in tools:
                typer.echo(
                    f"{name}  [{', '.join(roles)}]  {description.splitlines()[0] if description else ''}"
                )
            for server, error in errors.items():
                typer.echo(f"error: {server}: {error}", err=True)
        if errors:
            raise typer.Exit(1)
