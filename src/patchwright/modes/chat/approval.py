"""Routing a task's approval questions through the chat's front end.

A chat task asks through :class:`patchwright.modes.terminal.approval.TerminalPerson`: it
prints the verified diff (a rich ``Syntax``) on the console it was given, prints "Apply this
change?" and reads the answer with ``sys.stdin.readline()``. While a chat task runs, the
console is a :class:`ChangeConsole` that hands the diff to the front end (the REPL prints it
with a hint, the TUI shows it in its diff preview) and standard input is an
:class:`AnswerInput` that reads the answer from the front end and turns "always" into
"apply" plus edit permission for the rest of the session. (A chat ``Person`` of its own,
given to ``solve``, would replace these stand-ins.)
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from rich.console import Console
from rich.syntax import Syntax

CHANGE_QUESTION = "Apply this change?"
_CHOICE = re.compile(r"(?<!\\)\[([a-z])\]")
ALWAYS = frozenset({"always", "!"})


class ChangeConsole(Console):
    """A console that hands each diff the approval prints to ``on_diff`` (which shows it
    its own way) and remembers whether the last question was about a change."""

    def __init__(self, on_diff: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_diff = on_diff
        self.asking_change = False

    def print(self, *objects: Any, **kwargs: Any) -> None:
        rest = []
        for obj in objects:
            if isinstance(obj, Syntax) and _is_diff(obj):
                self.on_diff(obj.code)
            else:
                rest.append(obj)
        if any(isinstance(o, str) and CHANGE_QUESTION in o for o in rest):
            self.asking_change = True
            # the choices are written "[a]pply": keep the letters from reading as markup
            rest = [_CHOICE.sub(r"\\[\1]", o) if isinstance(o, str) else o for o in rest]
        if rest or not objects:
            super().print(*rest, **kwargs)


def _is_diff(syntax: Syntax) -> bool:
    lexer = syntax.lexer
    name = lexer if isinstance(lexer, str) else getattr(lexer, "name", "")
    return str(name).lower() == "diff"


class AnswerInput(io.TextIOBase):
    """Stands in for standard input while a task runs (see the module docstring)."""

    def __init__(
        self,
        read_line: Callable[[], str],
        console: ChangeConsole,
        allow_always: Callable[[], None],
    ) -> None:
        super().__init__()
        self._read_line = read_line
        self._console = console
        self._allow_always = allow_always

    def isatty(self) -> bool:
        return True  # answers come from a person, through the front end

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        line = self._read_line()
        change, self._console.asking_change = self._console.asking_change, False
        if change and line.strip().lower() in ALWAYS:
            self._allow_always()
            return "a\n"
        return line


@contextlib.contextmanager
def answering(
    read_line: Callable[[], str], console: ChangeConsole, allow_always: Callable[[], None]
) -> Iterator[None]:
    """Inside, ``sys.stdin`` reads answers through ``read_line``."""
    saved = sys.stdin
    sys.stdin = AnswerInput(read_line, console, allow_always)
    try:
        yield
    finally:
        sys.stdin = saved
