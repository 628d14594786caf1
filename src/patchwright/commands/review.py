"""``patchwright review``: the autonomous review-and-improve loop, with an optional live dashboard."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

FOCUS = ("bugs", "features", "both")
ON_TIMEOUT = ("apply", "skip")


def _usage(message: str) -> NoReturn:
    text = json.dumps({"error": message}) if "--json" in sys.argv else f"error: {message}"
    typer.echo(text, err=True)
    raise typer.Exit(2)


def _choice(value: str, allowed: tuple[str, ...], flag: str) -> str:
    if value not in allowed:
        _usage(f"{flag} {value}: choose one of {', '.join(allowed)}")
    return value


def register(app: typer.Typer) -> None:
    @app.command("review")
    def review_command(
        repo: Path = typer.Option(Path("."), "--repo", help="Repository to review."),
        model: str | None = typer.Option(None, "--model", "-m", help="Model, e.g. local:qwen2.5-coder-1.5b."),
        iterations: int = typer.Option(0, "--iterations", "-n", min=0, help="Stop after N iterations (0: when every file is reviewed, or Ctrl-C)."),
        target: list[str] = typer.Option([], "--target", help="Review only this file or folder (repeatable; names test files too)."),
        focus: str = typer.Option("both", "--focus", help="bugs | features | both (a feature when nothing is wrong)."),
        checkpoint_timeout: float = typer.Option(220.0, "--checkpoint-timeout", min=0.0, help="Seconds a proposal waits for an answer."),
        on_timeout: str = typer.Option("apply", "--on-timeout", help="apply | skip when the checkpoint times out."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Apply verified proposals without waiting."),
        cooldown: float = typer.Option(0.0, "--cooldown", min=0.0, help="Seconds to pause between iterations."),
        dashboard: bool = typer.Option(False, "--dashboard", help="Serve the live dashboard."),
        port: int = typer.Option(8765, "--port", min=0, max=65535, help="Dashboard port (0: any free one)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Dashboard address (default: this machine only)."),
        memory_in_repo: bool = typer.Option(False, "--memory-in-repo", help="Write ANALYSIS.md, MEMORY.md, ... at the repository root."),
        test_cmd: str | None = typer.Option(None, "--test-cmd", help="Test command (default: detected)."),
        test_timeout: float | None = typer.Option(None, "--test-timeout", min=1.0, help="Seconds a test run may take (default: the run.test_timeout setting)."),
        smoke_seconds: float = typer.Option(5.0, "--smoke-seconds", min=0.0, help="Run the program this long after each change (0: no smoke run)."),
        heal: int = typer.Option(2, "--heal", min=0, help="Repairs of a proposal that fails the gates."),
        edit_format: str | None = typer.Option(None, "--edit-format", help="auto|diff|whole|udiff (default: the run.edit_format setting)."),
        edit_format_for: list[str] = typer.Option([], "--edit-format-for", help="KIND=FORMAT: the edit format of proposals about smoke|tests|types|lint|cascade|clean|feature (repeatable; with --edit-format auto)."),
        no_commit: bool = typer.Option(False, "--no-commit", help="Keep accepted changes uncommitted."),
        no_git: bool = typer.Option(False, "--no-git", help="Plain directory: no git, journal only."),
        as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the result."),
        record: Path | None = typer.Option(None, "--record", help="Record model replies to a JSONL file."),
    ) -> None:  # fmt: skip
        """Review the repository and improve it, one verified, committed change at a time."""
        from patchwright.agent.edit_format import FORMATS
        from patchwright.modes.review.checkpoint import CheckpointOptions
        from patchwright.modes.review.cli import execute
        from patchwright.modes.review.formats import parse_overrides
        from patchwright.modes.review.options import ReviewOptions
        from patchwright.modes.review.propose import Tuning

        try:
            formats = parse_overrides(edit_format_for)
        except ValueError as exc:
            _usage(f"--edit-format-for {exc}")
        opts = ReviewOptions(
            repo=repo,
            iterations=iterations,
            targets=list(target),
            focus=_choice(focus, FOCUS, "--focus"),  # type: ignore[arg-type]
            checkpoint=CheckpointOptions(yes, checkpoint_timeout,
                                         _choice(on_timeout, ON_TIMEOUT, "--on-timeout")),  # type: ignore[arg-type]
            tuning=Tuning(heal=heal, smoke_seconds=smoke_seconds or None,
                          test_timeout=test_timeout,
                          edit_format=edit_format and _choice(edit_format, FORMATS, "--edit-format"),
                          edit_formats=formats),
            cooldown=cooldown,
            memory_in_repo=memory_in_repo,
            test_cmd=test_cmd,
            commit=not no_commit,
            no_git=no_git,
        )  # fmt: skip
        factory: Any = None
        if dashboard:
            from patchwright.ui.dashboard import serve

            def factory(state: Any, desk: Any) -> Any:
                return serve(state, desk, host=host, port=port)

        code = execute(opts, model=model, record=record, as_json=as_json, quiet=quiet,
                       dashboard=factory)  # fmt: skip
        raise typer.Exit(code)
