"""What a chat session holds between turns (``modes/chat/state.py``): where it works (the
repository's top level, or the folder itself without git), the edit permission it starts
with, a resumed conversation and its files in context, the usage counted step by step, the
conversation budget of the model in use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.modes.chat.test_engine import ScriptedUI

from patchwright.llm import ModelInfo
from patchwright.modes.chat.engine import Chat
from patchwright.modes.chat.state import ChatError, ChatOptions, Usage, history_budget, open_chat

Script = Callable[[list[str]], Path]


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_usage_adds_up_prompt_and_completion_tokens_and_cost() -> None:
    usage = Usage()
    usage.add(100, 20, 0.5)
    usage.add(1, 2, 0.25)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.tokens) == (101, 22, 123)
    assert usage.cost == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("spec", "window", "budget"),
    [("local:qwen", 32768, 1200), ("openai:m", 4096, 2000), ("openai:m", 32768, 8192),
     ("openai:m", 1_000_000, 24000)],
)  # fmt: skip
def test_the_conversation_budget_is_lean_for_an_embedded_model_and_a_quarter_window_otherwise(
    spec: str, window: int, budget: int
) -> None:
    assert history_budget(ModelInfo(spec, context_window=window)) == budget


def test_a_chat_opened_in_a_subfolder_works_on_the_whole_repository(
    shop_repo: Path, script: Script, shop: type
) -> None:
    state = open_chat(ChatOptions(repo=shop_repo / "shop", model=f"scripted:{script([])}"))
    assert state.root == shop_repo.resolve()
    assert state.cwd == (shop_repo / "shop").resolve()
    assert state.start_head == shop.git(shop_repo, "rev-parse", "HEAD").strip()  # type: ignore[attr-defined]
    assert state.git() is not None
    assert not state.allow_edits and state.files == [] and state.resumed_turns == 0


def test_without_git_the_folder_itself_is_the_root_and_no_head_is_noted(
    shop_repo: Path, script: Script
) -> None:
    options = ChatOptions(repo=shop_repo / "shop", model=f"scripted:{script([])}", no_git=True)
    state = open_chat(options)
    assert state.root == (shop_repo / "shop").resolve()
    assert state.git() is None and state.start_head is None


def test_a_folder_outside_git_is_its_own_root(tmp_path: Path, script: Script) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    state = open_chat(ChatOptions(repo=folder, model=f"scripted:{script([])}"))
    assert state.root == folder.resolve() and state.git() is None


def test_yes_allows_edits_from_the_start(shop_repo: Path, script: Script) -> None:
    state = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", yes=True))
    assert state.allow_edits


def test_a_chat_cannot_start_on_a_missing_folder_or_an_unknown_model(
    tmp_path: Path, shop_repo: Path
) -> None:
    with pytest.raises(ChatError, match="not a directory"):
        open_chat(ChatOptions(repo=tmp_path / "nowhere", model="scripted:x"))
    with pytest.raises(ChatError):
        open_chat(ChatOptions(repo=shop_repo, model="nosuchprovider:x"))


def test_resuming_an_unknown_session_is_a_chat_error(shop_repo: Path, script: Script) -> None:
    with pytest.raises(ChatError, match="no record of session 'nope'"):
        open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", resume="nope"))


def test_a_resumed_chat_has_its_turns_and_its_last_files_in_context_back(
    shop_repo: Path, script: Script
) -> None:
    first = Chat(open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script(['ok'])}")),
                 ScriptedUI())  # fmt: skip
    first.handle("/add shop/*.py")
    first.handle("what is this?")
    first.handle("/drop shop/__init__.py")
    state = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", resume=""))
    assert state.store.id == first.state.store.id
    assert state.files == ["shop/pricing.py"]
    assert state.resumed_turns == 2
    assert [t.content for t in state.conversation.turns] == ["what is this?", "ok"]


def test_a_resumed_chat_without_a_context_entry_keeps_no_files(
    shop_repo: Path, script: Script
) -> None:
    first = Chat(open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script(['ok'])}")),
                 ScriptedUI())  # fmt: skip
    first.handle("why?")
    state = open_chat(
        ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", resume=first.state.store.id)
    )
    assert state.files == [] and state.resumed_turns == 2


def test_record_writes_the_transcript_and_adds_only_turns_to_the_conversation(
    shop_repo: Path, script: Script
) -> None:
    state = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}"))
    state.record("user", text="hello")
    state.record("plan", plan={"intent": "x"})
    state.record("command", label="/exec ls", output="a\n")
    assert [e["kind"] for e in state.store.entries()] == ["user", "plan", "command"]
    assert [t.content for t in state.conversation.turns] == ["hello", "[/exec ls]\na"]


def test_each_steps_model_usage_is_counted_once(shop_repo: Path, script: Script) -> None:
    chat = Chat(open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script(['an answer'])}")),
                ScriptedUI())  # fmt: skip
    chat.handle("what does apply_discount do?")
    after_question = chat.state.usage.tokens
    assert after_question > 0 and chat.state.usage.completion_tokens > 0
    chat.handle("/allow-edits on")  # no model call: nothing more is counted
    assert chat.state.usage.tokens == after_question
    assert chat.state.session.usage.usage.prompt_tokens == 0  # a fresh ledger for the next step


def test_switching_model_sets_the_new_budget_and_notes_it_in_the_session(
    shop_repo: Path, script: Script, tmp_path: Path
) -> None:
    state = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}"))
    state.record("user", text="hello")  # the session is on disk
    other = tmp_path / "other.jsonl"
    other.write_text('{"content": "x"}\n')
    state.conversation.budget_tokens = 1
    state.switch_model(f"scripted:{other}")
    assert state.model_name == f"scripted:{other}"
    assert state.conversation.budget_tokens == history_budget(state.session.model.info)
    assert state.store.meta()["model"] == f"scripted:{other}"
