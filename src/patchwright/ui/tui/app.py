"""``patchwright tui``: the chat in Textual — the conversation pane with the streamed reply,
a diff preview with apply / reject keys, a side panel with the files in context and the
session's changes, a status bar. The same session and commands as the REPL: each line runs
in a worker thread on the chat's one Session; Ctrl-C cancels that step."""

from __future__ import annotations

from typing import ClassVar

from rich.markdown import Markdown
from rich.markup import escape
from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.suggester import SuggestFromList
from textual.widgets import Header, Input, RichLog, Static

from patchwright import interrupts
from patchwright.modes.chat.commands.table import COMMANDS
from patchwright.modes.chat.engine import Chat
from patchwright.modes.chat.state import ChatError, ChatOptions, ChatState, open_chat
from patchwright.ui.tui.bridge import TuiUI
from patchwright.ui.tui.widgets import Confirm, DiffPreview, SidePanel, StatusBar


class ChatApp(App[int]):
    CSS = """
    #main { height: 1fr; }
    #left { width: 3fr; }
    #log { height: 1fr; border: round $primary-background; }
    #stream { height: auto; max-height: 12; color: $text-muted; padding: 0 1; }
    #diff { height: 2fr; border: round $success; display: none; }
    #side { width: 1fr; min-width: 28; border: round $primary-background; padding: 0 1; }
    #status { height: 1; background: $boost; }
    #confirm { width: 60; height: auto; border: thick $warning; padding: 1 2; background: $panel; }
    Confirm { align: center middle; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "cancel", "stop the step", priority=True),
        Binding("ctrl+q", "quit", "quit", priority=True),
    ]
    TITLE = "patchwright"

    def __init__(self, state: ChatState) -> None:
        super().__init__()
        self.state = state
        self.ui = TuiUI(self)
        self.chat = Chat(state, self.ui)
        self.busy = False
        self.token: interrupts.CancelToken | None = None
        self._interrupted = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield RichLog(id="log", wrap=True, markup=False)
                yield Static("", id="stream")
                yield DiffPreview(self.ui.answers.put, id="diff")
            yield SidePanel(id="side")
        commands = [f"/{name}" for name in sorted(COMMANDS)]
        yield Input(placeholder="ask a question, give a task, or /help", id="input",
                    suggester=SuggestFromList(commands, case_sensitive=False))  # fmt: skip
        yield StatusBar(id="status")

    def on_mount(self) -> None:
        self.sub_title = f"{self.state.model_name} · {self.state.root}"
        self.write_log(Text.from_markup(
            "[b]patchwright[/b] · /help lists commands · a task's diff waits here for "
            "[b]a[/b] (apply) or [b]r[/b] (reject) · ctrl+c stops a step · ctrl+q quits"))  # fmt: skip
        self.refresh_panels()
        self.query_one("#input", Input).focus()

    # -- called from the worker thread (through call_from_thread) ----------------------

    def write_log(self, content: Text | Markdown | str) -> None:
        self.query_one("#log", RichLog).write(content)

    def show_stream(self, text: str) -> None:
        tail = "\n".join(text.splitlines()[-10:])
        self.query_one("#stream", Static).update(Text(tail))

    def finish_stream(self, text: str) -> None:
        self.query_one("#stream", Static).update("")
        self.write_log(Markdown(text))

    def show_diff(self, diff: str) -> None:
        self.query_one("#diff", DiffPreview).show(diff)

    def hide_diff(self) -> None:
        self.query_one("#diff", DiffPreview).display = False
        self.query_one("#input", Input).focus()

    def ask(self, question: str, default: bool) -> None:
        self.push_screen(
            Confirm(question, default), lambda yes: self.ui.answers.put("y" if yes else "n")
        )

    # -- the user's side --------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        line = event.value.strip()
        if not line:
            return
        if self.busy:
            self.notify("a step is running: wait, or ctrl+c to stop it", severity="warning")
            return
        event.input.value = ""
        self.write_log(Text.from_markup(f"[b]you:[/b] {escape(line)}"))
        self.busy, self._interrupted = True, False
        self.token = interrupts.CancelToken()
        self.refresh_panels()
        self.run_step(line, self.token)

    @work(thread=True, exclusive=True)
    def run_step(self, line: str, token: interrupts.CancelToken) -> None:
        go_on = True
        with interrupts.scope(token):
            try:
                go_on = self.chat.handle(line)
            except KeyboardInterrupt:
                self.ui.end_stream()
                self.ui.console.print(
                    "[yellow]cancelled[/]: back at the prompt; nothing half-done was kept"
                )
            finally:
                self.ui.file.flush()
        self.call_from_thread(self.step_done, go_on)

    def step_done(self, go_on: bool) -> None:
        self.busy, self.token = False, None
        self.hide_diff()
        self.refresh_panels()
        if not go_on:
            self.exit(0)

    def refresh_panels(self) -> None:
        self.query_one("#side", SidePanel).refresh_from(self.state)
        self.query_one("#status", StatusBar).refresh_from(self.state, self.busy)

    def action_cancel(self) -> None:
        if self.busy and self.token is not None:
            self.token.cancel()
            self.notify("stopping the step…")
            return
        if self._interrupted:
            self.exit(0)
            return
        self._interrupted = True
        self.notify("ctrl+c again or ctrl+q to quit")


def run_tui(options: ChatOptions) -> int:
    """The TUI's process: returns the exit code (2: it could not start)."""
    from rich.console import Console

    from patchwright.modes.chat.repl import quiet_warnings

    quiet_warnings()
    try:
        state = open_chat(options)
    except ChatError as exc:
        Console(stderr=True).print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    ChatApp(state).run()
    if state.store.transcript.exists():
        print(f"session saved: patchwright chat --resume {state.store.id}")
    return 0
