"""Scripted replies: read in order from JSONL, streamed, exhausted clearly, and recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchwright.llm import (
    ModelConfigError,
    ScriptedModel,
    ScriptExhausted,
    ToolCall,
    make_model,
)
from patchwright.llm.types import Message

HELLO: list[Message] = [{"role": "user", "content": "hello"}]


def write_script(path: Path, *entries: dict[str, object]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


def test_replies_come_in_order_with_tool_calls(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "s.jsonl",
        {"content": "first"},
        {
            "content": "",
            "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}],
        },
    )
    model = make_model(f"scripted:{script}")
    assert model.complete(HELLO).text == "first"
    second = model.complete(HELLO)
    assert second.tool_calls == [ToolCall("c1", "read_file", {"path": "a.py"})]
    assert second.as_message()["tool_calls"] == [
        {"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}
    ]


def test_running_out_is_a_clear_error(tmp_path: Path) -> None:
    model = make_model(f"scripted:{write_script(tmp_path / 's.jsonl', {'content': 'only'})}")
    model.complete(HELLO)
    with pytest.raises(ScriptExhausted, match=r"all 1 scripted replies .* used up \(call 2\)"):
        model.complete(HELLO)


def test_streams_tokens_that_add_up_to_the_reply() -> None:
    pieces: list[str] = []
    reply = ScriptedModel(["def f():\n    return 1\n"]).complete(HELLO, on_token=pieces.append)
    assert len(pieces) > 1
    assert "".join(pieces) == reply.text


def test_malformed_script_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{not json\n', encoding="utf-8")
    with pytest.raises(ModelConfigError, match=r"bad.jsonl:2: not valid JSON"):
        make_model(f"scripted:{bad}")
    with pytest.raises(ModelConfigError, match="does not exist"):
        make_model(f"scripted:{tmp_path / 'missing.jsonl'}")


def test_recording_replays_the_same_session(tmp_path: Path) -> None:
    source = write_script(
        tmp_path / "in.jsonl",
        {"content": "a"},
        {"content": "b", "tool_calls": [{"id": "x", "name": "t", "arguments": {"k": 1}}]},
    )
    record = tmp_path / "rec" / "out.jsonl"
    live = make_model(f"scripted:{source}", record=record)
    originals = [live.complete(HELLO), live.complete(HELLO)]
    replay = make_model(f"scripted:{record}")
    replayed = [replay.complete(HELLO), replay.complete(HELLO)]
    assert [(r.text, r.tool_calls) for r in replayed] == [(r.text, r.tool_calls) for r in originals]


def test_router_accounts_scripted_calls(tmp_path: Path) -> None:
    model = make_model(f"scripted:{write_script(tmp_path / 's.jsonl', {'content': 'x y z'})}")
    reply = model.complete(HELLO)
    assert model.totals.calls == 1
    assert model.totals.usage == reply.usage
    assert reply.usage.completion_tokens > 0
    assert reply.model.startswith("scripted:")
