"""The TUI's parts (``ui/tui/``): the bridge a step's worker thread talks through (output a
line at a time to the pane, one streamed reply, questions and a change's approval answered
by the user's keys, every wait stopped by Ctrl-C), and the app itself driven by Textual's
pilot: the status bar and side panel follow the session, the confirm dialog's keys."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.syntax import Syntax
from rich.text import Text
from tests.conftest import make_repo
from textual.app import App
from textual.widgets import Input, Label

from patchwright import interrupts
from patchwright.modes.chat.state import ChatOptions, open_chat
from patchwright.ui.tui.app import ChatApp
from patchwright.ui.tui.bridge import PaneFile, TuiUI, wait_for
from patchwright.ui.tui.widgets import Confirm, DiffPreview, SidePanel, StatusBar


class Screen:
    """The app's side of the bridge, run at once on the calling thread, noting each call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def call_from_thread(self, callback: Callable[..., object], *args: object) -> object:
        return callback(*args)

    def suspend(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def __getattr__(self, name: str) -> Callable[..., None]:
        if name not in ("write_log", "ask", "show_stream", "finish_stream", "show_diff",
                        "hide_diff"):  # fmt: skip
            raise AttributeError(name)
        return lambda *args: self.calls.append((name, args[0] if len(args) == 1 else args))

    def named(self, name: str) -> list[Any]:
        return [arg for called, arg in self.calls if called == name]


# -- the bridge ----------------------------------------------------------------------------


def test_the_pane_gets_each_finished_line_and_the_rest_on_flush() -> None:
    lines: list[Text] = []
    pane = PaneFile(lines.append)
    pane.write("first\nsec")
    pane.write("ond\n\x1b[1mbold\x1b[0m")
    assert [t.plain for t in lines] == ["first", "second"]
    pane.flush()
    assert [t.plain for t in lines] == ["first", "second", "bold"]
    assert lines[-1].spans  # its style came through the ANSI codes
    pane.flush()
    assert len(lines) == 3


def test_a_console_print_reaches_the_pane_as_one_line_per_line() -> None:
    screen = Screen()
    ui = TuiUI(screen, width=60)
    ui.console.print("[bold]kept[/] a.py\nsecond line")
    assert [t.plain for t in screen.named("write_log")] == ["kept a.py", "second line"]


def test_a_streamed_reply_is_shown_as_it_grows_and_finished_once() -> None:
    screen = Screen()
    ui = TuiUI(screen)
    ui.end_stream()  # nothing streamed: nothing to finish
    for piece in ("It ", "adds ", "numbers."):
        ui.stream(piece)
    ui.end_stream()
    ui.end_stream()
    assert screen.named("show_stream") == ["It ", "It adds ", "It adds numbers."]
    assert screen.named("finish_stream") == ["It adds numbers."]


def test_a_question_waits_for_the_users_key() -> None:
    screen = Screen()
    ui = TuiUI(screen)
    ui.answers.put("y")
    assert ui.confirm("Write AGENTS.md?", default=True)
    ui.answers.put("n")
    assert not ui.confirm("Edit it again?")
    assert screen.named("ask") == [("Write AGENTS.md?", True), ("Edit it again?", False)]


def test_a_wait_ends_when_the_step_is_cancelled() -> None:
    token = interrupts.CancelToken()
    threading.Timer(0.05, token.cancel).start()
    with interrupts.scope(token), pytest.raises(KeyboardInterrupt):
        wait_for(queue.Queue())


def test_a_changes_diff_goes_to_the_preview_and_always_allows_edits() -> None:
    screen = Screen()
    ui = TuiUI(screen)
    allowed: list[bool] = []
    ui.stream("thinking")
    ui.answers.put("always")
    with ui.approvals(lambda: allowed.append(True)) as console:
        console.print(Syntax("+x = 2\n", "diff"))
        console.print("Apply this change? [a]pply / [s]kip")
        answer = sys.stdin.readline()
    assert answer == "a\n" and allowed == [True]
    names = [name for name, _ in screen.calls]
    assert names.index("finish_stream") < names.index("show_diff") < names.index("hide_diff")
    assert screen.named("show_diff") == ["+x = 2\n"]
    assert any("Apply this change? [a]pply" in t.plain for t in screen.named("write_log"))


def test_the_editor_runs_and_a_failing_one_reports_false(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ui = TuiUI(Screen())
    target = tmp_path / "a.py"
    target.write_text("x = 1\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "sed -i s/1/2/")
    assert ui.edit(target) and target.read_text() == "x = 2\n"
    monkeypatch.setenv("EDITOR", "false")
    assert not ui.edit(target)


# -- the app, headless ---------------------------------------------------------------------


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ChatApp:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    repo = make_repo(tmp_path / "calc", {"calc.py": "def add(a, b):\n    return a + b\n"})
    script = tmp_path / "replies.jsonl"
    script.write_text(json.dumps({"content": "It adds."}) + "\n")
    return ChatApp(open_chat(ChatOptions(repo=repo, model=f"scripted:{script}")))


def rendered(app: ChatApp, widget: type[Any]) -> str:
    return str(app.query_one(widget).render())


async def until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def send(app: ChatApp, pilot: Any, line: str) -> None:
    app.query_one("#input", Input).value = line
    await pilot.press("enter")
    await until(lambda: not app.busy)
    await pilot.pause()


def test_the_panels_follow_the_session(app: ChatApp) -> None:
    async def scenario() -> None:
        async with app.run_test(size=(140, 40)) as pilot:
            assert f"{app.state.model_name} · 0 tokens · edits: ask" in rendered(app, StatusBar)
            assert "(none: /add PATH)" in rendered(app, SidePanel)
            assert app.query_one("#diff", DiffPreview).display is False
            await send(app, pilot, "/add calc.py")
            await send(app, pilot, "/allow-edits on")
            assert "calc.py" in rendered(app, SidePanel)
            assert "edits: on" in rendered(app, StatusBar)
            await send(app, pilot, "/quit")
            await until(lambda: app.return_value == 0)

    asyncio.run(scenario())


def test_ctrl_c_twice_at_rest_leaves(app: ChatApp) -> None:
    async def scenario() -> None:
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("ctrl+c")
            await pilot.pause()
            assert app.is_running
            await pilot.press("ctrl+c")
            await until(lambda: app.return_value == 0)

    asyncio.run(scenario())


CONFIRM_KEYS = [("y", False, True), ("n", True, False), ("escape", True, False),
                ("enter", True, True), ("enter", False, False)]  # fmt: skip


def test_the_confirm_dialog_answers_by_key_and_enter_takes_the_default() -> None:
    answers: list[bool | None] = []
    host: App[None] = App()

    async def scenario() -> None:
        async with host.run_test(size=(80, 20)) as pilot:
            for key, default, _ in CONFIRM_KEYS:
                await host.push_screen(Confirm("Write AGENTS.md?", default), answers.append)
                hint = "[Y/n]" if default else "[y/N]"
                assert str(host.screen.query_one(Label).render()) == f"Write AGENTS.md? {hint}"
                await pilot.press(key)

    asyncio.run(scenario())
    assert answers == [answer for _, _, answer in CONFIRM_KEYS]


def test_a_hidden_preview_ignores_its_keys() -> None:
    given: list[str] = []
    preview = DiffPreview(given.append)
    preview.action_answer("a")  # nothing shown: no answer to give
    assert given == []
