"""``patchwright models``: the model catalog, marking what is usable on this machine."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("models")
    def models_command(
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        usable_only: bool = typer.Option(False, "--usable", help="Only models usable here."),
    ) -> None:
        """List known models with context window, prices and capabilities, marking those
        usable here: API keys present, embedded weights found, local servers answering."""
        from patchwright.config import ConfigError
        from patchwright.llm import Catalog, ModelConfigError
        from patchwright.llm.survey import survey
        from patchwright.trust_notice import settings_for

        try:
            settings = settings_for(Path.cwd(), as_json=as_json)
            catalog = Catalog(settings.model.catalog)
        except (ConfigError, ModelConfigError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        rows = survey(catalog, keys=settings.model.keys)
        if usable_only:
            rows = [r for r in rows if r.usable]
        if as_json:
            typer.echo(json.dumps({"models": [r.to_dict() for r in rows]}))
            return
        from rich.console import Console
        from rich.table import Table

        console = Console() if sys.stdout.isatty() else Console(width=200)
        table = Table(title="models (✓ usable here)")
        table.add_column("")
        table.add_column("model", no_wrap=True)
        for col in ("context", "$ in/out per 1M", "tools", "cache"):
            table.add_column(col, no_wrap=True)
        table.add_column("why", overflow="fold")
        for r in rows:
            i = r.info
            table.add_row(
                "✓" if r.usable else "·",
                i.spec,
                f"{i.context_window:,}",
                "free" if i.input == i.output == 0 else f"{i.input:g} / {i.output:g}",
                "yes" if i.tools else "text",
                "yes" if i.caching else "no",
                r.reason,
            )
        console.print(table)
