"""Ollama through its native /api/chat, against the loopback server: num_ctx is sent
sized to each request (the /v1 endpoint would ignore it), streaming, tools, faults."""

from __future__ import annotations

import pytest
from llm_fakeserver import FakeServer, stop_after

from patchwright.llm import ModelConfigError, ProviderError, make_model
from patchwright.llm.router import Router
from patchwright.llm.types import Message

HELLO: list[Message] = [{"role": "user", "content": "say hello"}]


def ollama(fake: FakeServer) -> Router:
    return make_model(
        "ollama:qwen2.5-coder",
        base_urls={"ollama": fake.url},
        timeout=0.5,
        backoff_initial=0.01,
        backoff_max=0.02,
        environ={},
    )


def test_streams_and_reports_counts(fake: FakeServer) -> None:
    pieces: list[str] = []
    reply = ollama(fake).complete(HELLO, on_token=pieces.append, max_tokens=50)
    assert reply.text == "".join(pieces) == "Hello from the fake server. "
    assert reply.usage.completion_tokens == 5
    assert reply.usage.prompt_tokens > 0
    assert fake.log[0].path == "/api/chat"
    assert fake.log[0].body["options"]["num_predict"] == 50


def test_num_ctx_is_sized_to_each_request_and_overflow_is_refused(fake: FakeServer) -> None:
    model = ollama(fake)
    model.complete(HELLO, max_tokens=100)
    model.complete([{"role": "user", "content": "word " * 12000}], max_tokens=100)
    small, big = (e.body["options"]["num_ctx"] for e in fake.log)
    assert small == 8192
    assert 8192 < big <= 32768 and big % 4096 == 0
    with pytest.raises(ModelConfigError, match="does not fit"):
        model.complete([{"role": "user", "content": "word " * 200000}])
    assert len(fake.log) == 2  # nothing was sent that Ollama would silently truncate


def test_native_tool_calls(fake: FakeServer) -> None:
    fake.plan("tool")
    tools = [{"name": "read_file", "description": "Read", "parameters": {"type": "object"}}]
    reply = ollama(fake).complete(HELLO, tools=tools)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("read_file", {"path": "a.py"})]
    assert fake.log[0].body["tools"][0]["function"]["name"] == "read_file"


def test_model_without_tools_gets_the_text_protocol_from_then_on(fake: FakeServer) -> None:
    fake.state.reject_tools = True
    fake.state.text = (
        'Reading. <tool_call>{"name": "read_file", "arguments": {"path": "b.py"}}</tool_call>'
    )
    tools = [{"name": "read_file", "description": "Read", "parameters": {"type": "object"}}]
    model = ollama(fake)
    reply = model.complete(HELLO, tools=tools)
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("read_file", {"path": "b.py"})]
    assert reply.text == "Reading."
    assert [e.behaviour for e in fake.log] == ["400-tools", "ok"]
    assert "tools" not in fake.log[1].body
    assert "<tool_call>" in fake.log[1].body["messages"][0]["content"]
    model.complete(HELLO, tools=tools)
    assert len(fake.log) == 3 and "tools" not in fake.log[2].body  # not asked again


def test_faults_are_retried(fake: FakeServer) -> None:
    fake.plan("500", "cut")
    model = ollama(fake)
    assert model.complete(HELLO).text
    assert [e.behaviour for e in fake.log] == ["500", "cut", "ok"]


def test_server_down_says_how_to_start_it() -> None:
    model = make_model("ollama:qwen2.5-coder", base_urls={"ollama": "http://127.0.0.1:9/v1"})
    with pytest.raises(ProviderError) as info:
        model.complete(HELLO)
    assert info.value.kind == "unreachable"
    assert "http://127.0.0.1:9" in str(info.value)
    assert "ollama serve" in str(info.value) and "ollama pull qwen2.5-coder" in str(info.value)
    assert model.totals.attempts == 1


def test_a_reply_the_caller_calls_complete_stops_the_stream_there(fake: FakeServer) -> None:
    pieces: list[str] = []
    reply = ollama(fake).complete(HELLO, on_token=stop_after(2, pieces), max_tokens=50)
    assert (reply.text, reply.finish_reason) == ("".join(pieces), "stop")
    assert len(pieces) == 2 and len(fake.log) == 1
