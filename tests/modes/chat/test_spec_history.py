"""The chat's conversation (``modes/chat/history.py``): which turns it keeps, how they are
shown to the model (merged by role, the summary first), the digest a task sees, compaction
(by the model, or mechanically when it cannot) and the replay of a transcript."""

from __future__ import annotations

from patchwright.llm import ScriptedModel
from patchwright.modes.chat.history import (
    KEEP_TURNS,
    Conversation,
    describe_task,
    turn_of,
)


def filled(n: int, budget: int = 50) -> Conversation:
    conversation = Conversation(budget_tokens=budget)
    for k in range(n):
        conversation.add("user" if k % 2 == 0 else "assistant", f"turn {k} " + "word " * 30)
    return conversation


def test_blank_turns_are_not_kept_and_kept_turns_are_stripped() -> None:
    conversation = Conversation(budget_tokens=100)
    conversation.add("user", "   \n")
    conversation.add("assistant", "")
    conversation.add("user", "  hello there \n")
    assert [(t.role, t.content) for t in conversation.turns] == [("user", "hello there")]


def test_the_size_counts_the_summary_and_every_turn() -> None:
    conversation = Conversation(budget_tokens=100)
    empty = conversation.tokens()
    conversation.add("user", "a question about the parser")
    one = conversation.tokens()
    conversation.summary = "we talked about the lexer at length"
    assert empty < one < conversation.tokens()


def test_a_conversation_is_over_budget_only_with_more_turns_than_a_compaction_keeps() -> None:
    few = filled(KEEP_TURNS, budget=1)
    assert few.tokens() > few.budget_tokens
    assert not few.over_budget()  # nothing older than the kept turns to summarise
    many = filled(KEEP_TURNS + 1, budget=1)
    assert many.over_budget()
    roomy = filled(KEEP_TURNS + 1, budget=10_000)
    assert not roomy.over_budget()


def test_consecutive_turns_of_one_role_are_merged_into_one_message() -> None:
    conversation = Conversation(budget_tokens=100)
    conversation.add("user", "first")
    conversation.add("user", "second")
    conversation.add("assistant", "answer")
    conversation.add("user", "third")
    assert conversation.messages() == [
        {"role": "user", "content": "first\n\nsecond"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "third"},
    ]


def test_the_summary_of_compacted_turns_comes_first_and_merges_with_a_leading_user_turn() -> None:
    conversation = Conversation(budget_tokens=100, summary="we fixed the lexer")
    conversation.add("user", "and now the parser?")
    messages = conversation.messages()
    assert len(messages) == 1 and messages[0]["role"] == "user"
    assert messages[0]["content"].startswith("[summary of our conversation so far]\n")
    assert "we fixed the lexer" in messages[0]["content"]
    assert messages[0]["content"].endswith("and now the parser?")


def test_clear_forgets_the_turns_and_the_summary() -> None:
    conversation = filled(6)
    conversation.summary = "earlier"
    conversation.clear()
    assert conversation.turns == [] and conversation.summary == ""
    assert conversation.messages() == []


def test_the_digest_keeps_the_last_exchanges_on_one_short_line_each() -> None:
    conversation = Conversation(budget_tokens=100)
    for k in range(5):
        conversation.add("user", f"question {k}\nspread over\n  lines")
        conversation.add("assistant", f"answer {k} " + "x" * 400)
    lines = conversation.digest(limit=2)
    assert len(lines) == 4
    assert lines[0] == "user: question 3 spread over lines"
    assert lines[1].startswith("assistant: answer 3 ") and lines[1].endswith("…")
    assert len(lines[1]) == len("assistant: ") + 200
    assert lines[-1].startswith("assistant: answer 4")


def test_the_digest_starts_with_the_summary_when_there_is_one() -> None:
    conversation = Conversation(budget_tokens=100, summary="s " * 400)
    conversation.add("user", "now")
    lines = conversation.digest()
    assert lines[0].startswith("summary: s s") and len(lines[0]) == len("summary: ") + 300
    assert lines[1] == "user: now"


def test_compaction_keeps_the_latest_turns_and_summarises_the_rest_by_the_model() -> None:
    conversation = filled(10)
    latest = [t.content for t in conversation.turns[-KEEP_TURNS:]]
    result = conversation.compact(ScriptedModel(["the user asked ten things"]))
    assert result.by_model and result.turns == 10 - KEEP_TURNS
    assert [t.content for t in conversation.turns] == latest
    assert conversation.summary == result.summary == "the user asked ten things"
    assert result.after == conversation.tokens() < result.before


def test_without_a_model_the_compaction_is_mechanical_and_keeps_the_earlier_summary() -> None:
    conversation = filled(7)
    conversation.summary = "an earlier summary"
    result = conversation.compact(None)
    assert not result.by_model
    lines = conversation.summary.splitlines()
    assert lines[0] == "an earlier summary"
    assert lines[1].startswith("user: turn 0 word") and len(lines[1]) <= len("user: ") + 160
    assert len(lines) == 1 + 7 - KEEP_TURNS


def test_a_model_that_fails_or_answers_nothing_leaves_the_mechanical_summary() -> None:
    failing = filled(6)
    result = failing.compact(ScriptedModel([]))  # its script is used up: a ModelError
    assert not result.by_model and "turn 0" in failing.summary
    blank = filled(6)
    result = blank.compact(ScriptedModel(["   "]))
    assert not result.by_model and "turn 1" in blank.summary


def test_the_mechanical_summary_is_bounded() -> None:
    conversation = filled(200)
    conversation.compact(None)
    assert len(conversation.summary) <= 2400


def test_transcript_entries_stand_for_turns_by_their_kind() -> None:
    assert turn_of({"kind": "user", "text": "hi"}) == ("user", "hi")
    assert turn_of({"kind": "assistant", "text": "hello"}) == ("assistant", "hello")
    assert turn_of({"kind": "command", "label": "/exec ls", "output": "a.py\n"}) == (
        "user",
        "[/exec ls]\na.py",
    )
    assert turn_of({"kind": "file", "output": ""}) == ("user", "[file]\n(no output)")
    task = turn_of({"kind": "task", "outcome": "solved", "files": ["a.py"]})
    assert task == ("assistant", "[task solved: changed a.py]")
    for kind in ("context", "compaction", "plan", "tool"):
        assert turn_of({"kind": kind}) is None


def test_a_long_command_output_keeps_its_end() -> None:
    output = "".join(f"line {n}\n" for n in range(1000))
    _, content = turn_of({"kind": "command", "label": "/test", "output": output}) or ("", "")
    assert content.startswith("[/test]\n[... cut]\n")
    assert content.endswith("line 999") and "line 0\n" not in content
    assert len(content) < 1600


def test_a_task_is_remembered_with_its_outcome_reason_files_and_short_commit() -> None:
    entry = {"outcome": "solved", "reason": "tests pass", "files": ["a.py", "b.py"],
             "commit": "0123456789abcdef0123"}  # fmt: skip
    assert (
        describe_task(entry)
        == "[task solved (tests pass): changed a.py, b.py, committed 0123456789ab]"
    )
    assert describe_task({}) == "[task ?: changed no files]"


def test_replay_rebuilds_the_turns_and_counts_the_entries_that_were_turns() -> None:
    conversation = Conversation(budget_tokens=1000)
    count = conversation.replay(
        [
            {"kind": "user", "text": "what is x?"},
            {"kind": "context", "files": ["a.py"]},
            {"kind": "assistant", "text": "x is 1"},
            {"kind": "task", "outcome": "failed", "files": []},
        ]
    )
    assert count == 3
    assert [t.role for t in conversation.turns] == ["user", "assistant", "assistant"]


def test_replay_of_a_compaction_keeps_only_the_turns_it_kept_and_its_summary() -> None:
    conversation = Conversation(budget_tokens=1000)
    entries = [{"kind": "user", "text": f"q{n}"} for n in range(6)]
    entries.append({"kind": "compaction", "summary": "six questions", "kept": 2})
    entries.append({"kind": "assistant", "text": "after"})
    conversation.replay(entries)
    assert [t.content for t in conversation.turns] == ["q4", "q5", "after"]
    assert conversation.summary == "six questions"


def test_replay_of_a_clear_drops_every_earlier_turn() -> None:
    conversation = Conversation(budget_tokens=1000)
    conversation.replay(
        [
            {"kind": "user", "text": "old"},
            {"kind": "compaction", "summary": "", "kept": 0, "cleared": True},
            {"kind": "user", "text": "new"},
        ]
    )
    assert [t.content for t in conversation.turns] == ["new"] and conversation.summary == ""
