"""The slash commands' registry: names, usage lines, help, close-name suggestions, and the
plain-language phrases that mean a command ("undo that", "run the tests", "quit")."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from patchwright.modes.chat_engine import Chat

Handler = Callable[["Chat", str], None]


class CommandError(Exception):
    """A command could not do what was asked; the message says why and what to do."""


class QuitChat(Exception):
    """/quit: leave the chat."""


@dataclass(frozen=True)
class Command:
    name: str
    args: str  # the usage line's arguments, e.g. "PATH|GLOB"
    help: str
    handler: Handler
    paths: bool = False  # its argument is a repository path (completion)

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


COMMANDS: dict[str, Command] = {}


def command(
    name: str, args: str, help: str, *, paths: bool = False
) -> Callable[[Handler], Handler]:
    """Register a slash command's handler."""

    def register(handler: Handler) -> Handler:
        COMMANDS[name] = Command(name, args, help, handler, paths)
        return handler

    return register


def split(line: str) -> tuple[str, str]:
    """``"/read a.py b.py"`` → ``("read", "a.py b.py")``."""
    name, _, args = line.strip().removeprefix("/").partition(" ")
    return name.lower(), args.strip()


def closest(name: str, limit: int = 3) -> list[str]:
    """Commands whose names are nearest to a mistyped one (prefixes first)."""
    names = sorted(COMMANDS)
    prefixed = [n for n in names if n.startswith(name)] if name else []
    near = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
    return list(dict.fromkeys([*prefixed, *near]))[:limit]


# Whole-line phrases only: a task that merely contains these words stays a task.
_PHRASES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), cmd)
    for p, cmd in [
        (r"(?:quit|exit|bye|goodbye)", "/quit"),
        (
            r"(?:please\s+)?(?:undo|revert)(?:\s+(?:that|it|the last change|your last change))?",
            "/undo",
        ),
        (r"(?:please\s+)?run\s+(?:the\s+)?tests?(?:\s+suite)?", "/test"),
        (r"(?:show|what(?:'s| is))\s+(?:me\s+)?the\s+diff", "/diff"),
        (r"(?:allow|enable)\s+edits(?:\s+for\s+this\s+session)?", "/allow-edits on"),
        (r"(?:disallow|disable)\s+edits", "/allow-edits off"),
        (r"(?:re)?(?:build|index)\s+the\s+(?:code\s+)?index|reindex", "/index"),
        (r"(?:create|write|generate)\s+(?:an?\s+)?(?:AGENTS|CLAUDE)\.md", "/init"),
        (r"(?:help|\?)", "/help"),
        (r"(?:clear|reset)\s+(?:the\s+)?(?:conversation|chat|context)", "/clear"),
        (r"(?:which|what)\s+models?(?:\s+are there| can I use)?", "/model"),
        (r"(?:apply|carry out|do)\s+(?:the|that|this)\s+plan", "/apply"),
    ]
]


def from_phrase(line: str) -> str | None:
    """The slash command a whole line of plain language means, if any."""
    text = line.strip().rstrip(".!?").strip() or line.strip()
    for pattern, slash in _PHRASES:
        if pattern.fullmatch(text):
            return slash
    return None
