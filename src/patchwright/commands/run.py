"""``patchwright run``: one task, end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run_command(
        task: str | None = typer.Option(None, "--task", "-t", help="What to do."),
        task_file: Path | None = typer.Option(
            None, "--task-file", help="Read the task from a file."
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Repository to work in."),
        model: str | None = typer.Option(
            None, "--model", "-m", help="Model, e.g. local:qwen2.5-coder-1.5b."
        ),
        test_timeout: float | None = typer.Option(
            None,
            "--test-timeout",
            help="Seconds a test run may take (default: the run.test_timeout setting).",
        ),
        test_cmd: str | None = typer.Option(
            None, "--test-cmd", help="Test command (default: detected)."
        ),
        done_when: list[str] = typer.Option(
            [],
            "--done-when",
            help="A command that must exit 0 for the task to be done (repeatable).",
        ),
        max_iter: int | None = typer.Option(
            None,
            "--max-iter",
            min=1,
            help="Iterations; agent: coder rounds (default: the run.max_iter setting).",
        ),
        candidates: str = typer.Option(
            "auto", "--candidates", help="Replies sampled per iteration, best kept: N or auto."
        ),
        strategy: str | None = typer.Option(
            None,
            "--strategy",
            help="auto|pipeline|agent (auto: agent for capable tool-calling models).",
        ),
        no_plan: bool = typer.Option(False, "--no-plan", help="Agent: skip the planner."),
        edit_format: str | None = typer.Option(
            None, "--edit-format", help="auto|diff|whole|udiff."
        ),
        include: list[str] = typer.Option(
            [], "--include", help="Always show this file to the model."
        ),
        branch: bool = typer.Option(
            False, "--branch", help="Work on a new `patchwright/<task>` branch."
        ),
        no_git: bool = typer.Option(
            False, "--no-git", help="Plain directory: no git, journal only."
        ),
        no_commit: bool = typer.Option(
            False, "--no-commit", help="Leave the verified change uncommitted."
        ),
        yes: bool = typer.Option(
            False, "--yes", "-y", help="Apply verified changes without asking."
        ),
        approve_timeout: float | None = typer.Option(
            None, "--approve-timeout", help="Apply after S seconds without an answer."
        ),
        push: bool = typer.Option(False, "--push", help="Push the branch after committing."),
        pr: bool = typer.Option(False, "--pr", help="Open a pull request (gh or GITHUB_TOKEN)."),
        as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON object."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the result."),
        record: Path | None = typer.Option(
            None, "--record", help="Record model replies to a JSONL file."
        ),
    ) -> None:
        """Do one task: find the code, edit it, prove it with gates, commit — or restore the repo."""
        from patchwright.agent.request import Overrides
        from patchwright.modes.run.cli import execute

        text = _read_task(task, task_file)
        overrides = Overrides(
            test_cmd=test_cmd, done_when=done_when, strategy=strategy, max_iter=max_iter,
            candidates=_candidates(candidates), plan=False if no_plan else None,
            edit_format=edit_format, include=include, test_timeout=test_timeout,
            branch=branch or None, no_git=no_git, commit=False if no_commit else None, yes=yes,
            approve_timeout=approve_timeout, push=push, pr=pr,
        )  # fmt: skip
        code = execute(text, repo=repo, overrides=overrides, model=model, record=record,
                       as_json=as_json, quiet=quiet)  # fmt: skip
        raise typer.Exit(code)


def _candidates(value: str) -> int | None:
    """``--candidates``: ``auto`` (None) or a positive number."""
    if value == "auto":
        return None
    if not value.isdigit() or int(value) < 1:
        _usage(f"--candidates {value}: give a positive number or auto")
    return int(value)


def _read_task(task: str | None, task_file: Path | None) -> str:
    if (task is None) == (task_file is None):
        _usage("give exactly one of --task TEXT or --task-file FILE")
    if task_file is not None:
        try:
            task = task_file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            _usage(f"--task-file {task_file}: cannot read it ({exc})")
    assert task is not None
    if not task.strip():
        _usage("the task is empty")
    return task.strip()


def _usage(message: str) -> None:
    typer.echo(
        json.dumps({"error": message}) if "--json" in sys.argv else f"error: {message}", err=True
    )
    raise typer.Exit(2)
