"""The chat's behaviour behind any front end: commands, phrases, questions and tasks, plans,
your own edits through the gates, compaction. Real git repositories, the scripted model,
a front end that records what it is shown and answers from a list."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from patchwright.modes.chat.approval import ChangeConsole, answering
from patchwright.modes.chat.commands.base import from_phrase
from patchwright.modes.chat.engine import Chat
from patchwright.modes.chat.history import Conversation
from patchwright.modes.chat.state import ChatOptions, open_chat
from patchwright.modes.chat.turns import is_question, task_request
from patchwright.modes.chat.ui import AllowAlways

Script = Callable[[list[str]], Path]
TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


class ScriptedUI:
    """A front end that records its output and answers questions from ``answers``."""

    def __init__(self, answers: list[str] | None = None, edits: list[str] | None = None) -> None:
        self.out = io.StringIO()
        self.console = Console(file=self.out, width=200, color_system=None)
        self.answers = list(answers or [])
        self.edits = list(edits or [])
        self.diffs: list[str] = []

    @property
    def text(self) -> str:
        return self.out.getvalue()

    def confirm(self, question: str, *, default: bool = False) -> bool:
        self.console.print(question)
        return self.answers.pop(0) in ("y", "yes")

    def stream(self, piece: str) -> None:
        self.out.write(piece)

    def end_stream(self) -> None:
        self.out.write("\n")

    def edit(self, path: Path) -> bool:
        path.write_text(self.edits.pop(0))
        return True

    @contextlib.contextmanager
    def approvals(self, allow_always: AllowAlways) -> Iterator[Console]:
        console = ChangeConsole(self.diffs.append, file=self.out, width=200, color_system=None)
        with answering(lambda: self.answers.pop(0) + "\n", console, allow_always):
            yield console


def chat_for(repo: Path, replies: Path, ui: ScriptedUI, **options: Any) -> Chat:
    state = open_chat(ChatOptions(repo=repo, model=f"scripted:{replies}", **options))
    return Chat(state, ui)


@pytest.mark.parametrize(
    ("line", "slash"),
    [("undo that", "/undo"), ("Run the tests.", "/test"), ("quit", "/quit"),
     ("show me the diff", "/diff"), ("allow edits for this session", "/allow-edits on"),
     ("fix the undo button", None), ("run the tests in parallel by default", None)],
)  # fmt: skip
def test_whole_line_phrases_mean_commands_and_tasks_stay_tasks(
    line: str, slash: str | None
) -> None:
    assert from_phrase(line) == slash


@pytest.mark.parametrize(
    ("line", "question"),
    [("what does apply_discount do?", True), ("and why is it slow?", True),
     ("explain the pricing module", True), ("can you fix the parser?", False),
     ("add a --verbose flag", False), ("fix apply_discount", False)],
)  # fmt: skip
def test_questions_are_answered_and_requests_are_tasks(line: str, question: bool) -> None:
    assert is_question(line) is question


def test_an_unknown_command_names_the_closest_ones(shop_repo: Path, script: Script) -> None:
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([]), ui)
    assert chat.handle("/tokns") is True
    assert "unknown command /tokns; did you mean /tokens?" in ui.text
    assert chat.handle("/quit") is False


def test_always_applies_the_change_and_allows_later_edits_without_asking(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    ui = ScriptedUI(answers=["always"])
    chat = chat_for(shop_repo, script([FIX, "fix(pricing): x"]), ui)
    chat.handle(TASK)
    assert ui.diffs and "+    return price * (1 - percent / 100)" in ui.diffs[0]
    assert "Apply this change? [a]pply" in ui.text  # the choices read as written
    assert chat.state.allow_edits
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == "fix(pricing): x"


def test_skip_leaves_the_files_as_they_were(shop_repo: Path, script: Script, shop: Any) -> None:
    before = shop.fingerprint(shop_repo)
    ui = ScriptedUI(answers=["s"])
    chat = chat_for(shop_repo, script([FIX]), ui)
    chat.handle(TASK)
    assert shop.fingerprint(shop_repo) == before
    assert not chat.state.allow_edits


PLAN = {
    "intent": "apply_discount returns the discounted price",
    "files_to_read": ["tests/test_pricing.py"],
    "edits": [{"path": "shop/pricing.py", "action": "patch", "justification": "the formula"}],
    "post_checks": ["python3 -m pytest -q"],
}


def test_plan_is_validated_shown_and_apply_carries_it_out_through_the_gates(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    wrong = {**PLAN, "edits": [{"path": "shop/pricing.py", "action": "create"}]}
    replies = script(
        [json.dumps(wrong), "```json\n" + json.dumps(PLAN) + "\n```", FIX, "fix(pricing): y"]
    )
    ui = ScriptedUI()
    chat = chat_for(shop_repo, replies, ui, yes=True)
    chat.handle("/plan make apply_discount return the discounted price")
    assert "planning again" in ui.text  # the first plan created a file that exists
    assert "patch" in ui.text and "shop/pricing.py" in ui.text and "python3 -m pytest -q" in ui.text
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.BUGGY  # nothing written yet
    chat.handle("/apply")
    assert "solved" in ui.text
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert chat.state.plan is None
    chat.handle("/apply")
    assert "no plan to apply" in ui.text


def test_your_own_edit_goes_through_the_gates_before_it_is_kept(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    broken = shop.BUGGY.replace("return price * percent / 100", "return price * (1 - percent / 100")
    ui = ScriptedUI(answers=["y"], edits=[broken, shop.FIXED])
    chat = chat_for(shop_repo, script([]), ui)
    chat.handle("/write shop/pricing.py")
    assert "your edit fails the gates; nothing was written" in ui.text
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert "chore(pricing): edit shop/pricing.py by hand" in shop.git(
        shop_repo, "log", "-1", "--format=%s"
    )
    chat.handle("/undo")
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.BUGGY


def test_tokens_says_what_would_be_dropped_and_read_shows_a_large_file_by_its_outline(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    big = "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(8000))
    (shop_repo / "shop" / "big.py").write_text(big)
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([]), ui)
    chat.handle("/add shop/*.py")
    chat.handle("/tokens")
    assert "shop/pricing.py" in ui.text
    assert "would be dropped: over the budget" in ui.text.split("shop/big.py")[-1].splitlines()[0]
    chat.handle("/read shop/big.py")
    assert "shop/big.py: 32000 lines; its definitions:" in ui.text
    assert "… and 7800 more" in ui.text
    chat.handle("/drop shop/big.py")
    assert chat.state.files == ["shop/__init__.py", "shop/pricing.py"]
    chat.handle("/read ../outside.py")
    assert "outside" in ui.text.splitlines()[-1]


def test_a_long_conversation_is_compacted_and_replayed_the_same(script: Script) -> None:
    from patchwright.llm import ScriptedModel

    conversation = Conversation(budget_tokens=60)
    for n in range(8):
        conversation.add("user", f"question {n} " + "words " * 20)
        conversation.add("assistant", f"answer {n}")
    assert conversation.over_budget()
    result = conversation.compact(ScriptedModel(["we discussed eight questions"]))
    assert result.by_model and result.turns == 12 and result.after < result.before
    messages = conversation.messages()
    assert "we discussed eight questions" in messages[0]["content"]
    assert "answer 7" in messages[-1]["content"]
    entries = [{"kind": "user" if n % 2 == 0 else "assistant", "text": t.content}
               for n, t in enumerate([*conversation.turns])]  # fmt: skip
    replayed = Conversation(60)
    old = [{"kind": "user", "text": "old"}, {"kind": "assistant", "text": "old answer"}]
    replayed.replay([*old, {"kind": "compaction", "summary": result.summary, "kept": 0}, *entries])
    assert replayed.messages() == messages


def test_the_session_commands_report_on_the_session(shop_repo: Path, script: Script) -> None:
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script(["It applies a discount."]), ui)
    chat.handle("what does apply_discount do?")
    for line in ("/index", "/config", "/log", "/sessions", "/diff", "/allow-edits on", "/help"):
        chat.handle(line)
    text = ui.text
    assert "indexed 4 files" in text and "size caps: 512 KiB a file" in text
    assert "[model]" in text and 'name = "local:qwen2.5-coder-1.5b"' in text
    assert f"resume it with: patchwright chat --resume {chat.state.store.id}" in text
    assert "no changes since this session started" in text
    assert "edits on: verified changes are applied without asking" in text
    assert "/plan GOAL" in text and "/write PATH" in text
    chat.handle("/clear")
    assert chat.state.conversation.turns == []


def test_model_switches_within_the_session_and_a_bad_name_keeps_the_old_one(
    shop_repo: Path, script: Script, tmp_path: Path
) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"content": "from the other model"}\n')
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([]), ui)
    chat.handle(f"/model scripted:{other}")
    assert chat.state.model_name == f"scripted:{other}"
    chat.handle("why?")
    assert "from the other model" in ui.text
    chat.handle("/model nosuchprovider:x")
    assert f"(the session keeps scripted:{other})" in ui.text


def test_a_chat_task_is_asked_with_the_settings_and_the_chats_flags(
    shop_repo: Path, script: Script
) -> None:
    """[run] and [agent] reach chat's tasks as they reach run's (one request builder)."""
    config = shop_repo / ".patchwright" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        '[run]\nmax_iter = 7\nedit_format = "udiff"\n'
        '[agent]\nstrategy = "agent"\nplan = false\nmax_rejections = 5\n'
    )
    state = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script(['x'])}"))
    state.files = ["shop/pricing.py"]
    request = task_request(state, "fix the discount", done_when=["pytest -q"])
    assert (request.limits.max_iter, request.edit_format, request.strategy) == (7, "udiff", "agent")
    assert (request.limits.plan, request.limits.max_rejections) == (False, 5)
    assert request.include == ("shop/pricing.py",) and request.done_when == ("pytest -q",)
    flags = open_chat(ChatOptions(repo=shop_repo, model=f"scripted:{script(['x'])}", max_iter=2,
                                  no_commit=True))  # fmt: skip
    request = task_request(flags, "fix the discount")
    assert request.limits.max_iter == 2 and not request.git.commit
