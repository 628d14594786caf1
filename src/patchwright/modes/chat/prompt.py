"""The REPL's input line (prompt_toolkit): persistent history, completion of slash commands
and repository paths, multi-line input, Ctrl-C that clears the line, the status bar."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import HTML
from prompt_toolkit.history import FileHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from patchwright.modes.chat.commands.table import COMMANDS
from patchwright.workspace.files import list_files

if TYPE_CHECKING:
    from patchwright.modes.chat.state import ChatState

PROMPT = "› "
_LIST_TTL = 30.0  # seconds a listing of the repository's files is reused for completion


def history_path() -> Path:
    """Where typed lines are kept between sessions (the user's data folder)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "patchwright" / "history"


class ChatCompleter(Completer):
    """Slash commands (with their help) at the start of a line; repository paths after a
    command that takes one, and after ``@`` anywhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._paths: list[str] = []
        self._listed = 0.0

    def paths(self) -> list[str]:
        if time.monotonic() - self._listed > _LIST_TTL:
            try:
                files = [f.path for f in list_files(self.root)]
            except OSError:
                files = []
            folders = {p.rsplit("/", 1)[0] + "/" for p in files if "/" in p}
            self._paths, self._listed = sorted({*files, *folders}), time.monotonic()
        return self._paths

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if text.startswith("/") and " " not in text:
            for name in sorted(COMMANDS):
                if name.startswith(text[1:]):
                    found = COMMANDS[name]
                    yield Completion("/" + name, -len(text), display_meta=found.help)
            return
        word = document.get_word_before_cursor(WORD=True)
        name = text[1:].split(" ", 1)[0] if text.startswith("/") else ""
        takes_path = name in COMMANDS and COMMANDS[name].paths
        if word.startswith("@"):
            yield from self._path_completions(word[1:], len(word) - 1)
        elif takes_path:
            yield from self._path_completions(word, len(word))

    def _path_completions(self, prefix: str, replace: int) -> Iterable[Completion]:
        paths = self.paths()
        starts = [p for p in paths if p.startswith(prefix)]
        inside = [p for p in paths if prefix and prefix in p and p not in starts]
        for path in (starts + inside)[:60]:
            yield Completion(path, -replace)


def key_bindings() -> KeyBindings:
    """Enter sends; Esc Enter (Alt-Enter) or a line ending in ``\\`` starts a new line;
    Ctrl-C clears a line, and at an empty prompt raises ``KeyboardInterrupt``."""
    bindings = KeyBindings()

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.app.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.app.current_buffer.insert_text("\n")

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.app.current_buffer
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
        else:
            buffer.validate_and_handle()

    return bindings


def status_line(state: ChatState) -> Callable[[], HTML]:
    """The bottom bar: model, tokens and cost so far, edit permission, files in context."""

    def render() -> HTML:
        usage = state.usage
        edits = "on" if state.allow_edits else "ask"
        cost = f" · ${usage.cost:.4f}" if usage.cost else ""
        files = f" · {len(state.files)} in context" if state.files else ""
        return HTML(
            f" <b>{_esc(state.model_name)}</b> · {usage.tokens:,} tokens{cost}"
            f" · edits: <b>{edits}</b>{files} · /help"
        )

    return render


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def make_prompt(state: ChatState) -> PromptSession[str]:
    path = history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return PromptSession(
        history=FileHistory(str(path)),
        completer=ChatCompleter(state.root),
        complete_while_typing=True,
        key_bindings=key_bindings(),
        bottom_toolbar=status_line(state),
        prompt_continuation=lambda width, line, soft: "… ".rjust(width),
        multiline=True,  # Enter is bound above: it sends unless the line ends in "\"
    )
