"""The TUI's parts: the diff preview with its apply / reject keys, the side panel (files in
context, this session's changes), the status bar, a yes/no question."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.markup import escape
from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from patchwright.modes.chat.history import describe_task
from patchwright.modes.chat.state import ChatState


class DiffPreview(VerticalScroll, can_focus=True):
    """The verified change, highlighted, waiting for a key."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a,y", "answer('a')", "apply"),
        Binding("r,n", "answer('s')", "reject"),
        Binding("g", "answer('r')", "regenerate"),
        Binding("A", "answer('always')", "apply + allow edits"),
    ]

    def __init__(self, on_answer: Callable[[str], None], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.on_answer = on_answer
        self.body = Static("", id="diff-body")
        self.diff = ""

    def compose(self) -> ComposeResult:
        yield Label("[b]the verified change[/b] · [b]a[/b] apply · [b]r[/b] reject · "
                    "[b]g[/b] regenerate · [b]A[/b] apply and allow edits for the session")  # fmt: skip
        yield self.body

    def show(self, diff: str) -> None:
        self.diff = diff
        self.body.update(Syntax(diff, "diff", theme="monokai", word_wrap=True, line_numbers=False))
        self.display = True
        self.focus()

    def action_answer(self, answer: str) -> None:
        if self.display and self.diff:
            self.diff = ""
            self.display = False
            self.on_answer(answer)


class SidePanel(Static):
    """The files kept in context and the changes this session made."""

    def refresh_from(self, state: ChatState) -> None:
        files = "\n".join(f"  {escape(p)}" for p in state.files) or "  (none: /add PATH)"
        tasks = [e for e in state.store.entries() if e["kind"] == "task"]
        changes = "\n".join(f"  {escape(describe_task(e))}" for e in tasks[-12:]) or "  (none yet)"
        self.update(f"[b]in context[/b]\n{files}\n\n[b]this session's changes[/b]\n{changes}")


class StatusBar(Static):
    def refresh_from(self, state: ChatState, busy: bool) -> None:
        usage = state.usage
        cost = f" · ${usage.cost:.4f}" if usage.cost else ""
        edits = "on" if state.allow_edits else "ask"
        doing = " · [b]working[/b] (ctrl+c stops)" if busy else ""
        self.update(
            f" {escape(state.model_name)} · {usage.tokens:,} tokens{cost} · edits: {edits}{doing}"
        )


class Confirm(ModalScreen[bool]):
    """A yes/no question (y / n keys, Enter for the default)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, default: bool) -> None:
        super().__init__()
        self.question = question
        self.default = default

    def compose(self) -> ComposeResult:
        hint = "[Y/n]" if self.default else "[y/N]"
        with Vertical(id="confirm"):
            yield Label(f"{escape(self.question)} {hint}")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def key_enter(self) -> None:
        self.dismiss(self.default)
