"""The chat's slash commands (``modes/chat/commands/``), each through the chat's one entry
(``Chat.handle``): the table and its help, how a line names a command, what each command
does to the session, and the message a bad argument gets (the chat goes on after it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.modes.chat.test_engine import ScriptedUI, chat_for

from patchwright.modes.chat.commands.base import split
from patchwright.modes.chat.commands.setup import redacted
from patchwright.modes.chat.commands.table import COMMANDS, closest
from patchwright.modes.chat.engine import Chat

Script = Callable[[list[str]], Path]


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def ui() -> ScriptedUI:
    return ScriptedUI()


@pytest.fixture
def chat(shop_repo: Path, script: Script, ui: ScriptedUI) -> Chat:
    return chat_for(shop_repo, script([]), ui)


def said(ui: ScriptedUI, line: str, chat: Chat) -> str:
    """What the chat printed for one line (it must go on after it)."""
    start = len(ui.text)
    assert chat.handle(line) is True
    return ui.text[start:]


# -- the table ---------------------------------------------------------------------------


def test_every_command_is_listed_under_its_name_with_a_usage_line_and_help() -> None:
    assert {"help", "quit", "read", "add", "drop", "undo", "plan", "apply", "exec"} <= set(COMMANDS)
    for name, command in COMMANDS.items():
        assert command.name == name and name == name.lower()
        assert command.usage.startswith(f"/{name}") and command.help.strip()


def test_the_commands_that_take_a_repository_path_say_so_for_completion() -> None:
    assert {n for n, c in COMMANDS.items() if c.paths} == {"read", "add", "drop", "write"}


def test_help_lists_every_command_by_its_usage(chat: Chat, ui: ScriptedUI) -> None:
    text = said(ui, "/help", chat)
    for command in COMMANDS.values():
        assert command.usage in text
    assert "!CMD runs a command" in text


def test_a_mistyped_name_suggests_prefixes_first_then_close_names() -> None:
    assert closest("und")[0] == "undo"
    assert closest("a")[:2] == ["add", "allow-edits"]
    assert "tokens" in closest("tokns")
    assert closest("zzzzzz") == []


def test_an_unknown_command_without_a_close_name_points_to_help(chat: Chat, ui: ScriptedUI) -> None:
    assert "unknown command /zzzzzz (/help lists them)" in said(ui, "/zzzzzz", chat)


def test_a_line_names_its_command_in_any_case_with_its_arguments_trimmed() -> None:
    assert split("/READ  a.py b.py ") == ("read", "a.py b.py")
    assert split("/quit") == ("quit", "")


def test_quit_ends_the_chat_by_name_or_by_phrase(chat: Chat) -> None:
    assert chat.handle("/QUIT") is False
    assert chat.handle("bye") is False


def test_an_empty_line_does_nothing(chat: Chat, ui: ScriptedUI) -> None:
    assert said(ui, "   ", chat) == ""
    assert list(chat.state.store.entries()) == []


# -- edit permission ---------------------------------------------------------------------


def test_allow_edits_turns_on_and_off_and_says_where_it_stands(chat: Chat, ui: ScriptedUI) -> None:
    assert "edits off: every verified change is shown" in said(ui, "/allow-edits", chat)
    said(ui, "/allow-edits yes", chat)
    assert chat.state.allow_edits
    assert "edits off" in said(ui, "disable edits", chat)
    assert not chat.state.allow_edits


def test_allow_edits_with_another_word_is_refused_and_changes_nothing(
    chat: Chat, ui: ScriptedUI
) -> None:
    assert "/allow-edits maybe: say on or off" in said(ui, "/allow-edits maybe", chat)
    assert not chat.state.allow_edits


# -- files in context ----------------------------------------------------------------------


def test_add_keeps_files_once_in_the_order_named_and_records_them(
    chat: Chat, ui: ScriptedUI
) -> None:
    text = said(ui, "/add shop/pricing.py ./tests/test_pricing.py shop/pricing.py", chat)
    assert "added 2; in context: shop/pricing.py, tests/test_pricing.py" in text
    assert "added 1;" in said(ui, "/add shop/*.py", chat)  # pricing.py is there already
    assert chat.state.files == ["shop/pricing.py", "tests/test_pricing.py", "shop/__init__.py"]
    contexts = [e for e in chat.state.store.entries() if e["kind"] == "context"]
    assert contexts[-1]["files"] == chat.state.files


ADD_ERRORS = [
    ("", "give a path or a glob"),
    ("nothing/*.py", "nothing/*.py: no file of the repository matches"),
    ("missing.py", "missing.py: no such file"),
    ("../outside.py", "../outside.py:"),
    ("'unbalanced", "quote paths with spaces"),
    ("shop/pricing.py missing.py", "missing.py: no such file"),  # all or nothing
]


def test_add_names_what_it_cannot_add_and_adds_nothing(chat: Chat, ui: ScriptedUI) -> None:
    for args, message in ADD_ERRORS:
        assert message in said(ui, f"/add {args}", chat), args
    assert chat.state.files == []


def test_drop_takes_out_what_a_glob_matches_or_everything(chat: Chat, ui: ScriptedUI) -> None:
    chat.handle("/add shop/*.py tests/test_pricing.py")
    assert "dropped 2; in context: tests/test_pricing.py" in said(ui, "/drop ./shop/*", chat)
    assert "not in context" in said(ui, "/drop shop/pricing.py", chat)
    assert "dropped 1; in context: no files" in said(ui, "/drop", chat)
    assert chat.state.files == []


def test_read_shows_a_file_and_puts_it_in_the_conversation(chat: Chat, ui: ScriptedUI) -> None:
    text = said(ui, "/read shop/pricing.py", chat)
    assert "def apply_discount" in text
    assert chat.state.files == []  # shown once, not kept in context
    turn = chat.state.conversation.turns[-1]
    assert turn.role == "user" and turn.content.startswith(
        "[/read shop/pricing.py]\nshop/pricing.py\n"
    )
    assert "def apply_discount" in turn.content


def test_read_refuses_more_than_twenty_files_at_once(chat: Chat, ui: ScriptedUI) -> None:
    for n in range(21):
        (chat.state.root / "shop" / f"m{n}.py").write_text(f"X = {n}\n")
    assert "21 files match; narrow the glob" in said(ui, "/read shop/m*.py", chat)
    assert chat.state.conversation.turns == []


def test_clear_forgets_the_conversation_but_the_transcript_keeps_it(
    shop_repo: Path, script: Script, ui: ScriptedUI
) -> None:
    chat = chat_for(shop_repo, script(["an answer"]), ui)
    chat.handle("/add shop/pricing.py")
    chat.handle("why is it slow?")
    assert "conversation cleared" in said(ui, "/clear", chat)
    assert chat.state.conversation.turns == [] and chat.state.files == ["shop/pricing.py"]
    kinds = [e["kind"] for e in chat.state.store.entries()]
    assert kinds == ["context", "user", "assistant", "compaction"]


def test_tokens_shows_each_part_of_the_next_prompt(chat: Chat, ui: ScriptedUI) -> None:
    chat.handle("/add shop/pricing.py")
    (chat.state.root / "shop" / "pricing.py").unlink()
    text = said(ui, "/tokens", chat)
    assert "project memory" in text and "none (see /init)" in text
    assert "unreadable" in text and "total" in text


# -- running things ------------------------------------------------------------------------


def test_exec_and_bang_run_a_command_and_the_conversation_keeps_its_output(
    chat: Chat, ui: ScriptedUI
) -> None:
    text = said(ui, "!echo from-the-sandbox", chat)
    assert "from-the-sandbox" in text and "exit 0" in text
    entry = [e for e in chat.state.store.entries() if e["kind"] == "command"][-1]
    assert entry["label"] == "/exec echo from-the-sandbox" and entry["exit_code"] == 0
    assert chat.state.conversation.turns[-1].content.startswith("[/exec echo from-the-sandbox]")
    assert "exit 3" in said(ui, "/exec exit 3", chat)


def test_a_long_output_shows_its_last_sixty_lines(chat: Chat, ui: ScriptedUI) -> None:
    text = said(ui, "/exec seq 1 100", chat)
    assert "… 40 lines above not shown" in text
    assert "\n41\n" in text and "\n40\n" not in text


MISSING = [
    ("/exec", "give a command"),
    ("/ask", "give a question"),
    ("/code  ", "say what to do"),
    ("/plan", "give a goal"),
    ("/apply", "no plan to apply"),
    ("/write", "give one file"),
    ("/write a.py b.py", "give one file"),
    ("/init --claude bogus", "use one of pointer, copy, none"),
]


def test_a_command_missing_what_it_needs_says_what_to_give(chat: Chat, ui: ScriptedUI) -> None:
    for line, message in MISSING:
        assert message in said(ui, line, chat), line
    assert not (chat.state.root / "AGENTS.md").exists()
    assert list(chat.state.store.entries()) == []  # nothing was asked or recorded


def test_test_runs_the_configured_command_with_the_arguments_given(
    shop_repo: Path, script: Script, ui: ScriptedUI
) -> None:
    chat = chat_for(shop_repo, script([]), ui, test_cmd="echo testing")
    text = said(ui, "/test -k pricing", chat)
    assert "$ echo testing -k pricing" in text and "testing -k pricing" in text
    entry = [e for e in chat.state.store.entries() if e["kind"] == "command"][-1]
    assert entry["label"] == "/test (echo testing -k pricing)"


def test_test_without_a_runner_says_how_to_name_one(
    tmp_path: Path, script: Script, ui: ScriptedUI
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("nothing to test\n")
    chat = chat_for(folder, script([]), ui)
    assert "no test runner found" in said(ui, "/test", chat)


# -- changes -------------------------------------------------------------------------------


def test_undo_wants_a_positive_count(chat: Chat, ui: ScriptedUI) -> None:
    for args in ("two", "0", "1 2", "-1"):
        assert "give how many changes to take back" in said(ui, f"/undo {args}", chat), args


def test_undo_with_nothing_recorded_says_so(chat: Chat, ui: ScriptedUI) -> None:
    assert "nothing to undo" in said(ui, "undo that", chat)


def test_diff_shows_what_changed_since_the_session_started(chat: Chat, ui: ScriptedUI) -> None:
    assert "no changes since this session started" in said(ui, "/diff", chat)
    pricing = chat.state.root / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\nRATE = 2\n")
    assert "+RATE = 2" in said(ui, "show me the diff", chat)


def test_diff_without_git_shows_the_last_kept_change_of_the_session(
    shop_repo: Path, script: Script, ui: ScriptedUI
) -> None:
    chat = chat_for(shop_repo, script([]), ui, no_git=True)
    assert "no change kept in this session" in said(ui, "/diff", chat)
    chat.state.record(
        "task", outcome="solved", files=["a.py"], diff="--- a/a.py\n+++ b/a.py\n+x = 1\n"
    )
    assert "+x = 1" in said(ui, "/diff", chat)


def test_write_refuses_a_path_outside_the_repository(chat: Chat, ui: ScriptedUI) -> None:
    assert "../elsewhere.py:" in said(ui, "/write ../elsewhere.py", chat)


def test_write_with_no_change_writes_nothing(shop_repo: Path, script: Script, shop: Any) -> None:
    ui = ScriptedUI(edits=[shop.BUGGY])
    chat = chat_for(shop_repo, script([]), ui)
    assert "no change" in said(ui, "/write shop/pricing.py", chat)
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""


# -- the session ---------------------------------------------------------------------------


def test_sessions_marks_the_current_one(chat: Chat, ui: ScriptedUI) -> None:
    chat.state.record("user", text="a first question")
    text = said(ui, "/sessions", chat)
    assert f"● {chat.state.store.id}  a first question" in text


def test_log_says_where_the_transcript_is_before_any_task(chat: Chat, ui: ScriptedUI) -> None:
    text = said(ui, "/log", chat)
    assert str(chat.state.store.transcript) in text
    assert "no task has run in this session yet" in text


def test_config_masks_api_keys_and_redacts_secrets_in_strings() -> None:
    value = {"keys": {"openai": ["sk-abcdefghijklmnop", "short"]},
             "base": ["token=supersecretvalue"], "n": 3}  # fmt: skip
    shown = redacted({"model": value})["model"]
    assert shown["keys"] == {"openai": ["…mnop", "****"]}
    assert "supersecretvalue" not in shown["base"][0]
    assert shown["n"] == 3


def test_config_shows_the_settings_and_this_sessions_state(chat: Chat, ui: ScriptedUI) -> None:
    text = said(ui, "/config", chat)
    assert "layers: defaults" in text and "[run]" in text
    assert f"this session: model {chat.state.model_name}, edits ask" in text


def test_a_question_through_ask_is_answered_even_when_it_reads_like_a_task(
    shop_repo: Path, script: Script, ui: ScriptedUI
) -> None:
    chat = chat_for(shop_repo, script(["It divides."]), ui)
    assert "It divides." in said(ui, "/ask fix apply_discount", chat)
    user = [e for e in chat.state.store.entries() if e["kind"] == "user"][-1]
    assert user["mode"] == "ask" and user["text"] == "fix apply_discount"
