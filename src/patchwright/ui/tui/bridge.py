"""The chat's front end inside the TUI, seen from the worker thread that runs each step:
output goes to the conversation pane, questions wait for the user's key, a diff goes to
the preview. Every wait also watches the step's cancellation token (Ctrl-C)."""

from __future__ import annotations

import contextlib
import io
import os
import queue
import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from rich.console import Console
from rich.text import Text

from patchwright import interrupts
from patchwright.modes.chat.approval import ChangeConsole, answering
from patchwright.modes.chat.ui import AllowAlways


class ChatScreen(Protocol):
    """What the bridge asks of the app (:class:`patchwright.ui.tui.app.ChatApp`); its methods
    run on the app's thread, through ``call_from_thread``."""

    def call_from_thread(self, callback: Callable[..., object], *args: object) -> object: ...
    def suspend(self) -> contextlib.AbstractContextManager[None]: ...
    def write_log(self, content: Text) -> None: ...
    def ask(self, question: str, default: bool) -> None: ...
    def show_stream(self, text: str) -> None: ...
    def finish_stream(self, text: str) -> None: ...
    def show_diff(self, diff: str) -> None: ...
    def hide_diff(self) -> None: ...


_POLL = 0.1  # seconds between looks at the cancellation token while waiting


class PaneFile(io.StringIO):
    """A file a rich Console writes to: each finished line goes to the conversation pane."""

    def __init__(self, write_line: Callable[[Text], None]) -> None:
        super().__init__()
        self._write_line = write_line
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            self._write_line(Text.from_ansi(line))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._write_line(Text.from_ansi(self._pending))
            self._pending = ""


def wait_for(answers: queue.Queue[str]) -> str:
    """The next answer the user gives; a cancelled step stops waiting (KeyboardInterrupt)."""
    while True:
        interrupts.check()
        try:
            return answers.get(timeout=_POLL)
        except queue.Empty:
            continue


class TuiUI:
    """:class:`patchwright.modes.chat.ui.ChatUI` for the TUI (called from worker threads)."""

    def __init__(self, app: ChatScreen, width: int = 100) -> None:
        self.app = app
        self.file = PaneFile(self._line)
        self.console = Console(file=self.file, width=width, force_terminal=True,
                               color_system="truecolor")  # fmt: skip
        self.answers: queue.Queue[str] = queue.Queue()
        self._streamed = ""

    def _line(self, text: Text) -> None:
        self.app.call_from_thread(self.app.write_log, text)

    def confirm(self, question: str, *, default: bool = False) -> bool:
        self.app.call_from_thread(self.app.ask, question, default)
        return wait_for(self.answers) in ("y", "yes")

    def stream(self, piece: str) -> None:
        self._streamed += piece
        self.app.call_from_thread(self.app.show_stream, self._streamed)

    def end_stream(self) -> None:
        if self._streamed:
            text, self._streamed = self._streamed, ""
            self.app.call_from_thread(self.app.finish_stream, text)

    def edit(self, path: Path) -> bool:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        done: queue.Queue[bool] = queue.Queue()

        def run() -> None:
            try:
                with self.app.suspend():
                    done.put(subprocess.call([*shlex.split(editor), str(path)]) == 0)
            except Exception:  # no terminal to hand over (headless), or no editor
                done.put(False)

        self.app.call_from_thread(run)
        return done.get()

    @contextlib.contextmanager
    def approvals(self, allow_always: AllowAlways) -> Iterator[Console]:
        console = ChangeConsole(self._show_diff, file=self.file, width=self.console.width,
                                force_terminal=True, color_system="truecolor")  # fmt: skip
        with answering(self._answer, console, allow_always):
            yield console
        self.app.call_from_thread(self.app.hide_diff)

    def _show_diff(self, diff: str) -> None:
        self.end_stream()
        self.app.call_from_thread(self.app.show_diff, diff)

    def _answer(self) -> str:
        return wait_for(self.answers) + "\n"
