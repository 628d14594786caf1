"""What a slash command is — name, usage line, help, handler — and how a line names one:
``/name args``, or a whole-line plain-language phrase ("undo that", "run the tests", "quit").

Each command module collects its handlers in its own :class:`CommandSet`; the table of every
command, and the modules it is built from, is :mod:`patchwright.modes.chat.commands.table`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from patchwright.modes.chat.state import ChatState
    from patchwright.modes.chat.ui import ChatUI


class ChatParts(Protocol):
    """What a handler works with: the chat's state and its front end (a
    :class:`patchwright.modes.chat.engine.Chat`)."""

    @property
    def state(self) -> ChatState: ...

    @property
    def ui(self) -> ChatUI: ...


Handler = Callable[[ChatParts, str], None]


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


class CommandSet:
    """The commands one module defines, in the order it defines them."""

    def __init__(self) -> None:
        self.commands: list[Command] = []

    def __call__(
        self, name: str, args: str, help: str, *, paths: bool = False
    ) -> Callable[[Handler], Handler]:
        """Add a handler to this set (the decorator of each command)."""

        def add(handler: Handler) -> Handler:
            self.commands.append(Command(name, args, help, handler, paths))
            return handler

        return add

    def __iter__(self) -> Iterator[Command]:
        return iter(self.commands)


def split(line: str) -> tuple[str, str]:
    """``"/read a.py b.py"`` → ``("read", "a.py b.py")``."""
    name, _, args = line.strip().removeprefix("/").partition(" ")
    return name.lower(), args.strip()


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
