"""Plain-language turns (``modes/chat/turns.py``): which lines are questions, what a question
shows the model and what the transcript keeps of it, the request a task is asked with (the
settings, the chat's flags, its files and a digest of the conversation), the lines a task's
progress and outcome are told in."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.modes.chat.test_engine import ScriptedUI, chat_for

from patchwright.agent.solve_types import SolveResult
from patchwright.events import (
    BaselineStart,
    ContextBuilt,
    GateResult,
    ModelRequest,
    ToolCall,
    ToolRefused,
    TxnRollback,
    TxnWrite,
)
from patchwright.modes.chat.engine import Chat
from patchwright.modes.chat.state import ChatOptions, ChatState, open_chat
from patchwright.modes.chat.turns import TurnProgress, is_question, report, task_request

Script = Callable[[list[str]], Path]


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def state(shop_repo: Path, script: Script) -> ChatState:
    return open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}"))


def spy(chat: Chat, monkeypatch: pytest.MonkeyPatch) -> list[list[dict[str, Any]]]:
    """The messages of every call the chat's (real) model receives."""
    model = chat.state.session.model
    sent: list[list[dict[str, Any]]] = []
    real = model.complete

    def complete(messages: Any, **kwargs: Any) -> Any:
        sent.append([dict(m) for m in messages])
        return real(messages, **kwargs)

    monkeypatch.setattr(model, "complete", complete)
    return sent


# -- questions and tasks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "question"),
    [("hmm, why does it fail", True), ("ok so where is the CLI", True),
     ("does this handle unicode?", True), ("Summarize the pricing module", True),
     ("please add a docstring?", False), ("could you explain it?", False), ("", False),
     ("ok", False), ("rename apply_discount to discount", False)],
)  # fmt: skip
def test_a_question_starts_with_a_question_word_or_ends_with_a_question_mark(
    line: str, question: bool
) -> None:
    assert is_question(line) is question


def test_a_question_word_with_a_contraction_is_still_a_question() -> None:
    assert is_question("what's the purpose of pricing.py")


def test_a_question_shows_the_model_its_memory_files_and_the_conversation_so_far(
    shop_repo: Path, script: Script, monkeypatch: pytest.MonkeyPatch
) -> None:
    (shop_repo / "AGENTS.md").write_text("Prices are floats.\n")
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script(["It discounts.", "Yes."]), ui)
    sent = spy(chat, monkeypatch)
    chat.handle("/add shop/pricing.py")
    chat.handle("what does apply_discount do?")
    chat.handle("is it correct?")
    system, *history, question = sent[1]
    assert system["role"] == "system"
    assert "Project notes (from AGENTS.md):\nPrices are floats." in system["content"]
    assert "Files in context:\n\nshop/pricing.py\n```python\n" in system["content"]
    assert history == [{"role": "user", "content": "what does apply_discount do?"},
                       {"role": "assistant", "content": "It discounts."}]  # fmt: skip
    assert question == {"role": "user", "content": "is it correct?"}
    assert "It discounts." in ui.text and "Yes." in ui.text  # streamed to the front end


def test_a_question_is_kept_in_the_transcript_with_the_time_to_its_first_token(
    shop_repo: Path, script: Script
) -> None:
    chat = chat_for(shop_repo, script(["An answer."]), ScriptedUI())
    chat.handle("why?")
    user, assistant = chat.state.store.entries()
    assert (user["kind"], user["text"], user["mode"]) == ("user", "why?", "ask")
    assert (assistant["kind"], assistant["text"]) == ("assistant", "An answer.")
    assert isinstance(assistant["first_token_s"], float) and assistant["first_token_s"] >= 0


def test_a_model_error_is_told_and_the_chat_goes_on(shop_repo: Path, script: Script) -> None:
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([]), ui)  # no reply left: every call fails
    assert chat.handle("why?") is True
    assert "error:" in ui.text and "used up" in ui.text
    assert [e["kind"] for e in chat.state.store.entries()] == ["user"]
    assert chat.handle("/allow-edits on") is True and chat.state.allow_edits


# -- a task's request ----------------------------------------------------------------------


def test_a_task_is_asked_with_the_files_in_context_and_the_edit_permission(
    state: ChatState,
) -> None:
    state.files = ["shop/pricing.py"]
    request = task_request(state, "fix it", include=["tests/test_pricing.py", "shop/pricing.py"])
    assert request.include == ("shop/pricing.py", "tests/test_pricing.py")
    assert not request.approval.yes
    state.allow_edits = True
    assert task_request(state, "fix it").approval.yes


def test_a_task_without_a_conversation_is_just_the_request(state: ChatState) -> None:
    assert task_request(state, "add a --verbose flag").task == "add a --verbose flag"


def test_a_task_carries_a_short_digest_of_the_conversation(state: ChatState) -> None:
    state.conversation.add("user", "what does apply_discount do?")
    state.conversation.add("assistant", "It returns the discount, which looks wrong.")
    task = task_request(state, "fix it").task
    assert task.startswith("fix it\n")
    assert "Earlier in this conversation (for reference only" in task
    assert "- user: what does apply_discount do?" in task
    assert "- assistant: It returns the discount, which looks wrong." in task


def test_the_chats_flags_reach_the_tasks_request(shop_repo: Path, script: Script) -> None:
    options = ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", no_git=True,
                          test_cmd="pytest -x", edit_format="whole")  # fmt: skip
    request = task_request(open_chat(options), "fix it", done_when=["pytest -q"])
    assert request.test_cmd == "pytest -x" and request.edit_format == "whole"
    assert not request.git.use_git and request.done_when == ("pytest -q",)


def test_commit_follows_the_settings_unless_no_commit_is_given(
    shop_repo: Path, script: Script
) -> None:
    plain = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script([])}"))
    assert task_request(plain, "x").git.commit == plain.settings.run.commit
    options = ChatOptions(repo=shop_repo, model=f"scripted:{script([])}", no_commit=True)
    assert task_request(open_chat(options), "x").git.commit is False


# -- what a task tells ---------------------------------------------------------------------


def test_a_tasks_progress_is_told_a_line_at_a_time(state: ChatState) -> None:
    ui = ScriptedUI()
    progress = TurnProgress(ui, state)
    progress(BaselineStart())
    progress(ContextBuilt(files=["shop/pricing.py"], omitted=[], fmt="diff"))
    progress(ContextBuilt(files=[], omitted=[], fmt="diff"))
    progress(ModelRequest(phase="", messages=2))
    progress(TxnWrite(iteration=1, paths=["shop/pricing.py"]))
    for status in ("passed", "skipped", "could_not_run"):
        progress(GateResult(gate="tests", status=status, new_problems=0, fixed_problems=0,
                            seconds=0.1, reason=None))  # fmt: skip
    for gate, reason in (
        ("tests", "not run: the lint gate failed"),
        ("types", "no checker"),
        ("tests", "`npm test` still fails, as it did before the change"),
    ):
        progress(GateResult(gate=gate, status="skipped", new_problems=0, fixed_problems=0,
                            seconds=0.1, reason=reason))  # fmt: skip
    progress(TxnRollback(reason="the tests fail"))
    lines = [line.strip() for line in ui.text.splitlines()]
    assert lines == [
        "· checking the tests before any change…",
        "plan · reading shop/pricing.py",
        "plan · reading (none)",
        "· asking the model…",
        "· verifying shop/pricing.py…",
        "tests: passed",
        "tests: skipped",
        "tests: could not run",
        "tests: skipped — `npm test` still fails, as it did before the change",
        "· rolled back: the tests fail",
    ]


def test_a_tool_call_is_told_and_kept_in_the_transcript(state: ChatState) -> None:
    ui = ScriptedUI()
    progress = TurnProgress(ui, state)
    progress(ToolCall(role="coder", tool="read_file", arguments={"path": "a.py"}, ok=True,
                      observation="x = 1"))  # fmt: skip
    progress(ToolRefused(role="reviewer", tool="write_file", allowed=["read_file"]))
    assert "· coder read_file(path=a.py): ok" in ui.text
    assert "· reviewer write_file(): refused" in ui.text
    tools = [e for e in state.store.entries() if e["kind"] == "tool"]
    assert [t["event"] for t in tools] == ["tool.call", "tool.refused"]
    assert tools[0]["tool"] == "read_file"
    assert state.conversation.turns == []  # tool calls are not conversation


@pytest.mark.parametrize(
    ("result", "lines"),
    [
        (SolveResult("solved", "r1", files_changed=["a.py"], commit="0123456789abcdef",
                     prompt_tokens=10, completion_tokens=5, seconds=2.0),
         ["solved · 2.0s · 15 tokens", "committed 0123456789ab: a.py"]),
        (SolveResult("unverified", "r2", files_changed=["a.py", "b.py"]),
         ["unverified · 0.0s · 0 tokens", "changed (not committed): a.py, b.py"]),
        (SolveResult("failed", "r3", reason="the tests still fail", notes=["see the log"]),
         ["failed · 0.0s · 0 tokens", "the tests still fail; the repository is as it was",
          "note: see the log"]),
        (SolveResult("interrupted", "r4"),
         ["interrupted · 0.0s · 0 tokens", "nothing changed; the repository is as it was"]),
    ],
)  # fmt: skip
def test_a_tasks_outcome_says_what_was_kept(result: SolveResult, lines: list[str]) -> None:
    ui = ScriptedUI()
    report(ui, result)
    assert ui.text.splitlines() == lines
