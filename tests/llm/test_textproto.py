"""The text tool protocol used where a backend has no native tool calls."""

from __future__ import annotations

from patchwright.llm.textproto import parse_tool_calls, to_text_messages
from patchwright.llm.types import Message, ToolSpec

TOOLS: list[ToolSpec] = [
    {"name": "read_file", "description": "Read a file", "parameters": {"properties": {"path": {}}}}
]


def test_blocks_become_calls_and_prose_is_kept() -> None:
    text = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
    prose, calls = parse_tool_calls(text, ["read_file"])
    assert prose == "Let me look."
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a.py"})]


def test_broken_or_unknown_calls_stay_visible_in_the_text() -> None:
    broken = '<tool_call>{"name": "read_file", "arguments": {</tool_call>'
    unknown = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'
    for text in (broken, unknown):
        prose, calls = parse_tool_calls(text, ["read_file"])
        assert calls == []
        assert prose == text


def test_a_reply_that_is_only_the_json_is_a_call() -> None:
    _, calls = parse_tool_calls(
        '```json\n{"name": "read_file", "arguments": {"path": "x"}}\n```', ["read_file"]
    )
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "x"})]
    prose, calls = parse_tool_calls('{"answer": 42}', ["read_file"])
    assert calls == [] and prose == '{"answer": 42}'


def test_conversation_is_rewritten_for_a_plain_chat_template() -> None:
    convo: list[Message] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "read a.py"},
        {
            "role": "assistant",
            "content": "ok",
            "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "print(1)"},
        {"role": "tool", "tool_call_id": "c2", "content": "print(2)"},
    ]
    out = to_text_messages(convo, TOOLS)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].startswith("Be brief.") and "read_file" in out[0]["content"]
    assert (
        '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
        in out[2]["content"]
    )
    assert "print(1)" in out[3]["content"] and "print(2)" in out[3]["content"]
