"""Every slash command, and ``/help`` which lists them. The table is built from the command
modules named here — a module's commands are in the chat because it is listed below, not
because something happened to import it — with close-name suggestions for a mistyped one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from rich.markup import escape
from rich.table import Table

from patchwright.modes.chat.commands import changes, context, plan, setup, tools
from patchwright.modes.chat.commands.base import ChatParts, Command, CommandSet

command = CommandSet()


@command("help", "", "this list")
def help_cmd(chat: ChatParts, args: str) -> None:
    table = Table(title="commands", show_header=False, box=None, padding=(0, 2))
    for name in sorted(COMMANDS):
        found = COMMANDS[name]
        table.add_row(f"[bold]{escape(found.usage)}[/]", escape(found.help))
    chat.ui.console.print(table)
    chat.ui.console.print(
        "Anything else is a question (answered, nothing written) or a task (planned, "
        "verified, shown to you before it is kept). !CMD runs a command. Ctrl-C stops the "
        "current step; Ctrl-D or /quit leaves."
    )


def _table(*sets: Iterable[Command]) -> dict[str, Command]:
    table: dict[str, Command] = {}
    for found in (c for s in sets for c in s):
        if found.name in table:
            raise ValueError(f"two slash commands are named /{found.name}")
        table[found.name] = found
    return table


COMMANDS: dict[str, Command] = _table(
    command, setup.command, context.command, changes.command, tools.command, plan.command
)


def closest(name: str, limit: int = 3) -> list[str]:
    """Commands whose names are nearest to a mistyped one (prefixes first)."""
    names = sorted(COMMANDS)
    prefixed = [n for n in names if n.startswith(name)] if name else []
    near = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
    return list(dict.fromkeys([*prefixed, *near]))[:limit]
