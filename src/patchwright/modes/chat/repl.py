"""``patchwright`` / ``patchwright chat``: the REPL. One Session (one loaded model) for the
whole conversation; each line is a slash command, a question or a task (see
:mod:`patchwright.modes.chat.engine`). Ctrl-C stops the step in progress and returns to the
prompt (a task's files are restored); Ctrl-C twice at an empty prompt, or Ctrl-D, leaves.
Without a terminal on standard input, lines are read plainly (scripts, pipes)."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.markup import escape
from rich.syntax import Syntax

from patchwright import interrupts
from patchwright.modes.chat.approval import ChangeConsole, answering
from patchwright.modes.chat.engine import Chat
from patchwright.modes.chat.history import describe_task
from patchwright.modes.chat.state import ChatError, ChatOptions, ChatState, open_chat
from patchwright.modes.chat.ui import AllowAlways

ALWAYS_HINT = (
    "(answer [bold]always[/] to apply this and every later change of this session without asking)"
)


class _Stream:
    """A streamed reply: the tail shown live while it comes, then rendered as Markdown."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.text = ""
        self.live: Live | None = None

    def add(self, piece: str) -> None:
        self.text += piece
        if not self.console.is_terminal:
            self.console.file.write(piece)
            self.console.file.flush()
            return
        if self.live is None:
            self.live = Live(console=self.console, transient=True, refresh_per_second=8)
            self.live.start()
        rows = max(4, self.console.size.height - 4)
        tail = "\n".join(self.text.splitlines()[-rows:])
        self.live.update(Markdown(tail))

    def end(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.console.print(Markdown(self.text))
        elif self.text and not self.text.endswith("\n"):
            self.console.file.write("\n")
        self.text, self.live = "", None


class ReplUI:
    """The chat's front end in a terminal: rich output, plain-line answers, $EDITOR."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._stream = _Stream(console)

    def confirm(self, question: str, *, default: bool = False) -> bool:
        choices = "[Y/n]" if default else "[y/N]"
        self.console.print(f"[bold]{escape(question)}[/] {choices} ", end="")
        answer = sys.stdin.readline().strip().lower()
        return default if not answer else answer in ("y", "yes")

    def stream(self, piece: str) -> None:
        self._stream.add(piece)

    def end_stream(self) -> None:
        self._stream.end()

    def edit(self, path: Path) -> bool:
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        try:
            return subprocess.call([*shlex.split(editor), str(path)]) == 0
        except OSError:
            return False

    @contextlib.contextmanager
    def approvals(self, allow_always: AllowAlways) -> Iterator[Console]:
        self.end_stream()
        console = ChangeConsole(self._show_diff)
        with answering(sys.stdin.readline, console, allow_always):
            yield console

    def _show_diff(self, diff: str) -> None:
        self.end_stream()
        self.console.print("[bold]the verified change[/] (the gates passed):")
        self.console.print(Syntax(diff, "diff", theme="ansi_dark", word_wrap=True))
        self.console.print(f"[dim]{ALWAYS_HINT}[/]")


def _banner(console: Console, state: ChatState) -> None:
    from patchwright.agent.memory import read_memory

    memory = read_memory(state.root, state.cwd)
    console.print(f"[bold]patchwright[/] · {escape(state.model_name)} · {escape(str(state.root))}")
    notes = ", ".join(memory.sources) if memory.sources else "none yet: /init writes AGENTS.md"
    console.print(f"[dim]project memory: {escape(notes)}[/]")
    edits = "on (--yes)" if state.allow_edits else "you approve each change (or answer 'always')"
    console.print(
        f"[dim]edits: {edits} · /help lists commands · Ctrl-C stops a step · Ctrl-D leaves[/]"
    )
    if state.options.resume is not None:
        console.print(f"resumed session {state.store.id}: {state.resumed_turns} earlier turn(s)")
        _replay_tail(console, state)


def _replay_tail(console: Console, state: ChatState, turns: int = 6) -> None:
    shown = [e for e in state.store.entries() if e["kind"] in ("user", "assistant", "task")]
    for entry in shown[-turns:]:
        if entry["kind"] == "user":
            console.print(f"[bold]you:[/] {escape(str(entry.get('text', '')))}")
        elif entry["kind"] == "task":
            console.print(f"[dim]{escape(describe_task(entry))}[/]")
        else:
            text = str(entry.get("text", ""))
            console.print(escape(text if len(text) < 600 else text[:600] + " …"))


def _reader(state: ChatState) -> Callable[[], str]:
    """The next typed line: prompt_toolkit in a terminal, a plain line otherwise (EOFError
    at the end of input, KeyboardInterrupt on Ctrl-C at an empty prompt)."""
    if not sys.stdin.isatty():

        def plain() -> str:
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line.rstrip("\n")

        return plain
    from patchwright.modes.chat.prompt import PROMPT, make_prompt

    prompt = make_prompt(state)
    return lambda: prompt.prompt(PROMPT)


def repl(chat: Chat, read: Callable[[], str]) -> str | None:
    """Read and carry out lines until the user leaves; returns the signal that ended the
    session, if one did."""
    console = chat.ui.console
    interrupted = False
    while True:
        try:
            line = read()
        except KeyboardInterrupt:
            if interrupted:
                return None
            interrupted = True
            console.print("[dim](Ctrl-C again, Ctrl-D or /quit to leave)[/]")
            continue
        except EOFError:
            return None
        interrupted = False
        token = interrupts.CancelToken()
        try:
            with interrupts.stop_on_signals(token):
                if not chat.handle(line):
                    return None
        except KeyboardInterrupt:
            chat.ui.end_stream()
            console.print("[yellow]cancelled[/]: back at the prompt; nothing half-done was kept")
        if token.reason:  # SIGTERM (or another signal): the process is asked to end
            console.print(f"[yellow]stopped by {token.reason}[/]")
            return token.reason


def quiet_warnings() -> None:
    """Library warnings (lancedb's note on forking, printed at every gate run) would be
    noise between the chat's lines."""
    warnings.filterwarnings("ignore", message="lancedb fork support", category=RuntimeWarning)


def run_chat(options: ChatOptions) -> int:
    """The REPL's process: returns the exit code (2: it could not start)."""
    quiet_warnings()
    console = Console()
    try:
        state = open_chat(options)
    except ChatError as exc:
        Console(stderr=True).print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    chat = Chat(state, ReplUI(console))
    _banner(console, state)
    stopped = repl(chat, _reader(state))
    if state.store.transcript.exists():
        console.print(f"[dim]session saved: patchwright chat --resume {state.store.id}[/]")
    return 3 if stopped else 0
