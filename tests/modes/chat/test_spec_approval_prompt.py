"""Two pieces of the chat's front end: the approval stand-ins (``modes/chat/approval.py``) —
a console that hands a change's diff to the front end and keeps "[a]pply" literal, and an
input that turns "always" into apply plus edit permission — and the REPL's input line
(``modes/chat/prompt.py``): completion of commands and paths, the status bar."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import to_plain_text
from rich.syntax import Syntax
from tests.conftest import make_repo

from patchwright.modes.chat.approval import AnswerInput, ChangeConsole, answering
from patchwright.modes.chat.commands.table import COMMANDS
from patchwright.modes.chat.prompt import ChatCompleter, history_path, status_line
from patchwright.modes.chat.state import ChatOptions, open_chat

DIFF = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


def console() -> tuple[ChangeConsole, list[str], io.StringIO]:
    diffs: list[str] = []
    out = io.StringIO()
    return ChangeConsole(diffs.append, file=out, width=120, color_system=None), diffs, out


# -- the console a task's approval prints on -----------------------------------------------


def test_a_diff_goes_to_the_front_end_and_is_not_printed() -> None:
    con, diffs, out = console()
    con.print(Syntax(DIFF, "diff"))
    assert diffs == [DIFF] and out.getvalue() == ""


def test_other_code_and_text_beside_a_diff_are_printed() -> None:
    con, diffs, out = console()
    con.print(Syntax("x = 2\n", "python"), "after the code")
    con.print(Syntax(DIFF, "diff"), "beside the diff")
    assert diffs == [DIFF]
    assert "x = 2" in out.getvalue() and "after the code" in out.getvalue()
    assert "beside the diff" in out.getvalue() and "+x = 2" not in out.getvalue()


def test_an_empty_print_still_prints_a_blank_line() -> None:
    con, _, out = console()
    con.print()
    assert out.getvalue() == "\n"


def test_the_change_question_is_noted_and_its_choices_read_as_written() -> None:
    con, _, out = console()
    con.print("Some other question [y]/n")
    assert not con.asking_change
    con.print("Apply this change? [a]pply / [s]kip / [e]dit")
    assert con.asking_change
    assert "Apply this change? [a]pply / [s]kip / [e]dit" in out.getvalue()


# -- the input a task's approval reads -----------------------------------------------------


def reader(answers: Iterable[str], con: ChangeConsole) -> tuple[AnswerInput, list[bool]]:
    pending = iter(answers)
    allowed: list[bool] = []
    return AnswerInput(lambda: next(pending), con, lambda: allowed.append(True)), allowed


@pytest.mark.parametrize("answer", ["always\n", "!\n", "  ALWAYS \n"])
def test_always_to_a_change_applies_it_and_allows_edits_for_the_session(answer: str) -> None:
    con, _, _ = console()
    stdin, allowed = reader([answer], con)
    con.print("Apply this change? [a]pply / [s]kip")
    assert stdin.readline() == "a\n" and allowed == [True]


def test_always_counts_only_as_the_answer_to_a_change_question() -> None:
    con, _, _ = console()
    stdin, allowed = reader(["always\n", "always\n"], con)
    assert stdin.readline() == "always\n"  # no change was asked about
    con.print("Apply this change?")
    con.print("(an explanation)")
    assert stdin.readline() == "a\n"  # asked, then explained: still the change's answer
    assert allowed == [True] and not con.asking_change  # the question is answered once


def test_other_answers_pass_through_unchanged() -> None:
    con, _, _ = console()
    stdin, allowed = reader(["s\n"], con)
    con.print("Apply this change?")
    assert stdin.readline() == "s\n" and allowed == []
    assert stdin.isatty() and stdin.readable()


def test_answering_replaces_standard_input_only_inside_even_on_error() -> None:
    con, _, _ = console()
    saved = sys.stdin
    with pytest.raises(RuntimeError), answering(lambda: "y\n", con, lambda: None):
        assert sys.stdin.readline() == "y\n"
        raise RuntimeError("the task failed")
    assert sys.stdin is saved


# -- the REPL's input line -----------------------------------------------------------------


@pytest.fixture
def completer(tmp_path: Path) -> ChatCompleter:
    root = make_repo(tmp_path / "repo", {"shop/pricing.py": "", "shop/cart.py": "",
                                         "tests/test_pricing.py": "", "README.md": ""})  # fmt: skip
    return ChatCompleter(root)


def complete(completer: ChatCompleter, text: str) -> list[Completion]:
    return list(completer.get_completions(Document(text), CompleteEvent()))


def test_a_slash_completes_the_command_names_with_their_help(completer: ChatCompleter) -> None:
    everything = complete(completer, "/")
    assert [c.text for c in everything] == [f"/{n}" for n in sorted(COMMANDS)]
    (read,) = complete(completer, "/rea")
    assert read.text == "/read" and read.start_position == -4
    assert to_plain_text(read.display_meta) == COMMANDS["read"].help


def test_a_command_that_takes_a_path_completes_repository_paths(completer: ChatCompleter) -> None:
    found = [c.text for c in complete(completer, "/add sh")]
    assert found == ["shop/", "shop/cart.py", "shop/pricing.py"]
    assert all(c.start_position == -2 for c in complete(completer, "/add sh"))


def test_paths_that_contain_the_word_come_after_those_that_start_with_it(
    completer: ChatCompleter,
) -> None:
    assert [c.text for c in complete(completer, "/read pricing")] == [
        "shop/pricing.py",
        "tests/test_pricing.py",
    ]


def test_an_at_sign_completes_a_path_anywhere_in_a_line(completer: ChatCompleter) -> None:
    (cart,) = complete(completer, "why is @cart")
    assert cart.text == "shop/cart.py" and cart.start_position == -4


def test_nothing_is_completed_after_a_command_without_paths_or_in_plain_words(
    completer: ChatCompleter,
) -> None:
    assert complete(completer, "/quit sh") == []
    assert complete(completer, "fix shop") == []


def test_typed_lines_are_kept_in_the_users_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert history_path() == tmp_path / "data" / "patchwright" / "history"


def test_the_status_bar_shows_model_usage_edits_and_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    odd = tmp_path / "a<b&c"
    odd.mkdir()
    (odd / "r.jsonl").write_text(json.dumps({"content": "x"}) + "\n")
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    state = open_chat(ChatOptions(repo=repo, model=f"scripted:{odd / 'r.jsonl'}"))
    bar = status_line(state)
    first = to_plain_text(bar())
    assert first.strip() == f"{state.model_name} · 0 tokens · edits: ask · /help"
    state.usage.add(1200, 34, 0.0125)
    state.allow_edits = True
    state.files = ["a.py"]
    assert to_plain_text(bar()).strip() == (
        f"{state.model_name} · 1,234 tokens · $0.0125 · edits: on · 1 in context · /help"
    )
