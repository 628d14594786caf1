"""What the chat needs from a front end (the prompt_toolkit REPL, the Textual TUI): where
output goes, a yes/no question, streamed text, an editor, and the approval of a change."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from rich.console import Console


class ChatUI(Protocol):
    console: Console  # everything the chat prints goes here (rich markup and renderables)

    def confirm(self, question: str, *, default: bool = False) -> bool:
        """Ask a yes/no question (``/init``: write AGENTS.md?)."""
        ...

    def stream(self, piece: str) -> None:
        """Show one streamed piece of a model's reply as it arrives."""
        ...

    def end_stream(self) -> None:
        """The streamed reply is complete."""
        ...

    def edit(self, path: Path) -> bool:
        """Open ``path`` in the user's editor; False when no editor could run."""
        ...

    def approvals(self, allow_always: AllowAlways) -> AbstractContextManager[Console]:
        """Around one task: the console to give the task's ``TerminalPerson``, with its apply / edit /
        regenerate / skip questions answered through this front end. ``allow_always`` is
        called when the user answers "always" (allow edits for the rest of the session)."""
        ...


class AllowAlways(Protocol):
    def __call__(self) -> None: ...
