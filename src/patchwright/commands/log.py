"""``patchwright log``: show the last run, or a given one."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("log")
    def log_command(
        run_id: str | None = typer.Argument(
            None, help="Run id (or a unique prefix); default: last."
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Repository."),
        as_json: bool = typer.Option(False, "--json", help="Print the run summary as JSON."),
    ) -> None:
        """Show what a run did: outcome, files, commit, tokens, and its events."""
        from rich.console import Console

        from patchwright.agent.record import find_run
        from patchwright.commands._recover import recover_first, with_recovered

        if not repo.is_dir():
            typer.echo(f"error: --repo {repo} is not a directory", err=True)
            raise typer.Exit(2)
        recovered = recover_first(repo)
        run_dir = find_run(repo.resolve(), run_id)
        if run_dir is None:
            what, hint = (
                (f"run {run_id!r}", "ids are the folder names there")
                if run_id
                else ("any run", "each `patchwright run` records one")
            )
            typer.echo(
                f"error: no record of {what} under {repo}/.patchwright/runs; {hint}", err=True
            )
            raise typer.Exit(2)
        summary_path = run_dir / "summary.json"
        summary = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
        if as_json:
            typer.echo(json.dumps(with_recovered(summary | {"run_dir": str(run_dir)}, recovered)))
            return
        console = Console()
        console.print(
            f"[bold]run {run_dir.name}[/]  outcome: [bold]{summary.get('outcome', '?')}[/]"
        )
        for key in (
            "task",
            "model",
            "strategy",
            "edit_format",
            "iterations",
            "steps",
            "role_usage",
            "criterion",
            "files_changed",
            "commit",
            "usage",
            "cost",
            "seconds",
            "reason",
            "gates",
        ):
            if summary.get(key) not in (None, "", [], {}):
                console.print(f"  {key}: {summary[key]}", markup=False)
        for note in summary.get("notes") or []:
            console.print(f"  note: {note}", markup=False)
        events = run_dir / "events.jsonl"
        if events.is_file():
            console.print("[bold]events[/]")
            for line in events.read_text().splitlines():
                event = json.loads(line)
                details = {k: v for k, v in event.items() if k not in ("kind", "ts")}
                console.print(f"  {event['kind']:<16} {json.dumps(details)[:160]}", markup=False)
