"""``patchwright init``: write AGENTS.md (and CLAUDE.md) for the repository; never overwrites."""

from __future__ import annotations

import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init_command(
        repo: Path = typer.Option(Path("."), "--repo", help="Repository."),
        model: str | None = typer.Option(None, "--model", "-m", help="Model for the overview."),
        claude: str = typer.Option(
            "pointer", "--claude", help="CLAUDE.md: pointer (imports AGENTS.md), copy or none."
        ),
        no_model: bool = typer.Option(
            False, "--no-model", help="No overview from a model: only what the files show."
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Write without asking."),
    ) -> None:
        """Write AGENTS.md from what the repository shows (test and lint commands, layout,
        entry points) and the model's overview; shown first, existing files never replaced."""
        from rich.console import Console

        from patchwright.commands._recover import recover_first
        from patchwright.modes.chat.init import InitError, run_init
        from patchwright.modes.chat.state import ChatError, ChatOptions, open_session_only

        if not repo.is_dir():
            typer.echo(f"error: --repo {repo} is not a directory", err=True)
            raise typer.Exit(2)
        recover_first(repo)
        if not yes and not sys.stdin.isatty():
            typer.echo("error: no terminal to ask on; pass --yes to write the files", err=True)
            raise typer.Exit(2)
        try:
            session = open_session_only(ChatOptions(repo=repo, model=model))
            run_init(
                session,
                Console(),
                (lambda question, default=True: True) if yes else _confirm,
                claude=claude,
                use_model=not no_model,
            )
        except (ChatError, InitError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None


def _confirm(question: str, default: bool = False) -> bool:
    return typer.confirm(question, default=default)
