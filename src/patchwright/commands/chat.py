"""``patchwright chat [PATH]`` (also plain ``patchwright`` in a terminal): the REPL."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from patchwright.modes.chat.state import ChatOptions

Runner = Callable[["ChatOptions"], int]


def interactive_command(
    name: str, summary: str, runner: Callable[[], Runner]
) -> Callable[..., None]:
    """A command taking the chat's flags (the model and configuration flags of ``run``)
    that hands them to ``runner()`` (imported lazily) and exits with its code."""

    def command(
        path: Path | None = typer.Argument(None, help="Repository (default: the current one)."),
        repo: Path | None = typer.Option(None, "--repo", help="Repository to work in."),
        model: str | None = typer.Option(
            None, "--model", "-m", help="Model, e.g. local:qwen2.5-coder-1.5b."
        ),
        yes: bool = typer.Option(
            False, "--yes", "-y", help="Allow edits for the session: apply verified changes."
        ),
        no_commit: bool = typer.Option(
            False, "--no-commit", help="Leave verified changes uncommitted."
        ),
        no_git: bool = typer.Option(False, "--no-git", help="Plain directory: no git."),
        test_cmd: str | None = typer.Option(
            None, "--test-cmd", help="Test command (default: detected)."
        ),
        max_iter: int | None = typer.Option(
            None, "--max-iter", min=1, help="Iterations per task (default 4)."
        ),
        edit_format: str | None = typer.Option(
            None, "--edit-format", help="auto|diff|whole|udiff."
        ),
        record: Path | None = typer.Option(
            None, "--record", help="Record model replies to a JSONL file."
        ),
        resume: str | None = typer.Option(
            None, "--resume", "-r", help="Resume session ID (alone: the newest one)."
        ),
        continue_: bool = typer.Option(
            False, "--continue", "-c", help="Resume the newest session."
        ),
    ) -> None:
        from patchwright.modes.chat.state import ChatOptions

        if path is not None and repo is not None:
            typer.echo("error: give the repository once: PATH or --repo", err=True)
            raise typer.Exit(2)
        options = ChatOptions(
            repo=path or repo or Path("."),
            model=model,
            yes=yes,
            no_commit=no_commit,
            no_git=no_git,
            test_cmd=test_cmd,
            max_iter=max_iter,
            edit_format=edit_format,
            record=record,
            resume="" if continue_ and resume is None else resume,
        )
        raise typer.Exit(runner()(options))

    command.__doc__ = summary
    command.__name__ = f"{name}_command"
    return command


def _repl() -> Runner:
    from patchwright.modes.chat.repl import run_chat

    return run_chat


def register(app: typer.Typer) -> None:
    app.command("chat")(
        interactive_command(
            "chat",
            "Talk to patchwright in this repository: questions, tasks, /commands (the REPL).",
            _repl,
        )
    )
