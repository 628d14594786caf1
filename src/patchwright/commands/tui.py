"""``patchwright tui [PATH]``: the chat in a Textual interface."""

from __future__ import annotations

import typer

from patchwright.commands.chat import Runner, interactive_command


def _tui() -> Runner:
    from patchwright.ui.tui.app import run_tui

    return run_tui


def register(app: typer.Typer) -> None:
    app.command("tui")(
        interactive_command(
            "tui",
            "The chat in a full-screen terminal interface: conversation, diff preview, files.",
            _tui,
        )
    )
