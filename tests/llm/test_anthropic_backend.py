"""The Anthropic backend through the official SDK against the loopback server."""

from __future__ import annotations

import pytest
from llm_fakeserver import FakeServer, stop_after

from patchwright.llm import ProviderError, make_model
from patchwright.llm.anthropic_backend import wire_messages
from patchwright.llm.types import Message

CONVO: list[Message] = [
    {"role": "system", "content": "You are a careful engineer. " * 20},
    {"role": "user", "content": "hello"},
]


def claude(fake: FakeServer, **kw: object) -> object:
    return make_model(
        "anthropic:claude-haiku-4-5",
        base_urls={"anthropic": fake.root},
        environ={"ANTHROPIC_API_KEY": "sk-ant-test-key-000000000000"},
        timeout=0.5,
        backoff_initial=0.01,
        backoff_max=0.02,
        **kw,  # type: ignore[arg-type]
    )


def test_streams_and_marks_the_prefix_for_caching(fake: FakeServer) -> None:
    model = claude(fake)
    pieces: list[str] = []
    reply = model.complete(CONVO, on_token=pieces.append, max_tokens=20)  # type: ignore[attr-defined]
    assert reply.text == "".join(pieces) == "Hello from the fake server. "
    body = fake.log[0].body
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert fake.log[0].key == "sk-ant-test-key-000000000000"
    # cached prompt tokens are reported and billed at the cached rate
    assert reply.usage.cached_tokens > 0
    u = reply.usage
    fresh = u.prompt_tokens - u.cached_tokens
    assert reply.cost == pytest.approx(
        (fresh * 1.0 + u.cached_tokens * 0.1 + u.completion_tokens * 5.0) / 1e6
    )


def test_cut_stream_is_retried(fake: FakeServer) -> None:
    fake.plan("cut")
    model = claude(fake)
    assert model.complete(CONVO).text  # type: ignore[attr-defined]
    assert [e.behaviour for e in fake.log] == ["cut", "ok"]


def test_bad_request_is_not_retried(fake: FakeServer) -> None:
    fake.plan("400")
    with pytest.raises(ProviderError, match="HTTP 400"):
        claude(fake).complete(CONVO)  # type: ignore[attr-defined]
    assert len(fake.log) == 1


def test_tool_turns_become_tool_use_and_tool_result_blocks() -> None:
    convo: list[Message] = [
        {"role": "user", "content": "read a.py"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "t1", "name": "read_file", "arguments": {"path": "a.py"}}],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "x = 1"},
    ]
    system, msgs = wire_messages(convo)
    assert system == []
    assert msgs[1]["content"][0] == {
        "type": "tool_use",
        "id": "t1",
        "name": "read_file",
        "input": {"path": "a.py"},
    }
    assert msgs[2]["role"] == "user"
    assert msgs[2]["content"][0]["type"] == "tool_result"
    assert msgs[2]["content"][0]["tool_use_id"] == "t1"


def test_a_reply_the_caller_calls_complete_stops_the_stream_there(fake: FakeServer) -> None:
    pieces: list[str] = []
    reply = claude(fake).complete(CONVO, on_token=stop_after(2, pieces), max_tokens=20)  # type: ignore[attr-defined]
    assert (reply.text, reply.finish_reason) == ("".join(pieces), "stop")
    assert len(pieces) == 2 and len(fake.log) == 1 and reply.usage.completion_tokens > 0
