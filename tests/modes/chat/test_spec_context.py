"""What a chat question shows the model (``modes/chat/context.py``): the prompt's budget by
model, then project memory, the conversation, the files kept in context in the order they
were added (one over the budget is left out, not the ones after it; one that cannot be read
is named) and the repository outline with the room left."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.agent.context import approx_tokens
from patchwright.llm import ModelInfo
from patchwright.modes.chat.context import ChatContext, gather, prompt_budget
from patchwright.modes.chat.state import ChatOptions, ChatState, open_chat

Script = Callable[[list[str]], Path]


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def state(shop_repo: Path, script: Script) -> ChatState:
    return open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}"))


@pytest.mark.parametrize(
    ("spec", "window", "budget"),
    [("local:qwen", 131072, 3500), ("openai:m", 8192, 4000), ("openai:m", 32768, 18636),
     ("openai:m", 1_000_000, 60000)],
)  # fmt: skip
def test_the_prompt_budget_is_lean_for_an_embedded_model_and_most_of_the_window_otherwise(
    spec: str, window: int, budget: int
) -> None:
    assert prompt_budget(ModelInfo(spec, context_window=window)) == budget


def test_an_empty_chat_shows_the_outline_and_nothing_else(state: ChatState) -> None:
    ctx = gather(state)
    assert ctx.budget == prompt_budget(state.session.model.info)
    assert ctx.memory == "" and ctx.memory_sources == [] and ctx.files == []
    assert ctx.conversation == state.conversation.tokens() <= 1
    assert "pricing.py" in ctx.repo_map


def test_without_the_map_no_outline_is_built(state: ChatState) -> None:
    assert gather(state, with_map=False).repo_map == ""


def test_project_memory_is_read_for_every_question(state: ChatState) -> None:
    (state.root / "AGENTS.md").write_text("# Notes\nAlways run the tests with -q.\n")
    ctx = gather(state, with_map=False)
    assert "Always run the tests with -q." in ctx.memory
    assert ctx.memory_sources == ["AGENTS.md"]
    (state.root / "AGENTS.md").write_text("# Notes\nChanged.\n")
    assert "Changed." in gather(state, with_map=False).memory


def test_files_in_context_are_shown_whole_in_the_order_they_were_added(state: ChatState) -> None:
    without = gather(state, with_map=False).tokens
    state.files = ["tests/test_pricing.py", "shop/pricing.py"]
    ctx = gather(state, with_map=False)
    assert [f.path for f in ctx.files] == ["tests/test_pricing.py", "shop/pricing.py"]
    pricing = ctx.files[1]
    assert pricing.text == (state.root / "shop" / "pricing.py").read_text().rstrip("\n")
    assert pricing.lang == "python" and pricing.reason == "added"
    assert ctx.tokens - without == sum(approx_tokens(f.text) + 8 for f in ctx.files)


def test_a_file_over_the_budget_is_left_out_and_smaller_ones_after_it_still_fit(
    state: ChatState,
) -> None:
    budget = prompt_budget(state.session.model.info)
    (state.root / "big.txt").write_text("word " * (budget * 4))  # well past the budget
    state.files = ["big.txt", "shop/pricing.py"]
    ctx = gather(state)
    assert ctx.omitted == ["big.txt"]
    assert [f.path for f in ctx.files] == ["shop/pricing.py"]
    assert ctx.tokens <= ctx.budget


def test_a_file_that_cannot_be_read_is_named_with_the_reason(state: ChatState) -> None:
    state.files = ["gone.py", "../outside.py", "shop/pricing.py"]
    ctx = gather(state, with_map=False)
    assert set(ctx.unreadable) == {"gone.py", "../outside.py"}
    assert all(reason for reason in ctx.unreadable.values())
    assert [f.path for f in ctx.files] == ["shop/pricing.py"]


def test_the_conversation_is_counted_before_the_files(state: ChatState) -> None:
    budget = prompt_budget(state.session.model.info)
    state.conversation.add("user", "talk " * (budget * 2))  # the conversation fills the budget
    state.files = ["shop/pricing.py"]
    ctx = gather(state)
    assert ctx.conversation == state.conversation.tokens()
    assert ctx.omitted == ["shop/pricing.py"]
    assert ctx.repo_map == ""  # no room left for the outline


def test_the_total_counts_memory_outline_files_and_conversation() -> None:
    ctx = ChatContext(budget=1000, memory="m" * 35, repo_map="r" * 70, conversation=5)
    assert ctx.tokens == approx_tokens("m" * 35) + approx_tokens("r" * 70) + 5


def test_an_empty_context_totals_nothing() -> None:
    assert ChatContext(budget=1000).tokens == 0
