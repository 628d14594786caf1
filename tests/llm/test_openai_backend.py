"""The OpenAI-protocol backend against a real HTTP server on loopback (no SDK mocks)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from llm_fakeserver import FakeServer, stop_after

from patchwright.llm import ProviderError, make_model
from patchwright.llm.router import Router
from patchwright.llm.types import Message

HELLO: list[Message] = [{"role": "user", "content": "say hello"}]
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
    }
]


def compat(fake: FakeServer, **kw: Any) -> Router:
    options: dict[str, Any] = {
        "timeout": 0.5,
        "max_retries": 2,
        "backoff_initial": 0.01,
        "backoff_max": 0.02,
        "environ": {},
    }
    options.update(kw)
    return make_model(f"openai-compat:{fake.url}#fake", **options)


def test_streams_tokens_and_reports_usage(fake: FakeServer) -> None:
    pieces: list[str] = []
    model = compat(fake)
    reply = model.complete(HELLO, on_token=pieces.append, max_tokens=50)
    assert reply.text == "".join(pieces) == "Hello from the fake server. "
    assert len(pieces) == 5
    assert reply.usage.completion_tokens == 5
    assert reply.usage.cached_tokens == reply.usage.prompt_tokens // 2
    assert not reply.usage.estimated  # the server counted them
    assert fake.log[0].body["stream"] is True
    assert fake.log[0].body["max_tokens"] == 50


def test_a_reply_cut_off_at_the_limit_counts_the_limit_when_the_server_sends_no_usage(
    fake: FakeServer,
) -> None:
    fake.state.send_usage = False
    fake.state.text = "x " * 40  # 2 characters a token, where the estimate assumes ~3.5
    reply = compat(fake).complete(HELLO, max_tokens=20)
    assert reply.finish_reason == "length"
    assert reply.usage.completion_tokens == 20  # what the server generated, not the estimate
    assert reply.usage.estimated and reply.usage.to_dict()["estimated"] is True
    whole = compat(fake).complete(HELLO, max_tokens=50)
    assert whole.finish_reason == "stop" and whole.usage.completion_tokens < 40  # estimated


def test_native_tool_calls_are_assembled_from_deltas(fake: FakeServer) -> None:
    fake.plan("tool")
    reply = compat(fake).complete(HELLO, tools=TOOLS)
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_9", "read_file", {"path": "a.py"})
    ]
    assert fake.log[0].body["tools"][0]["function"]["name"] == "read_file"


def test_server_without_tools_gets_the_text_protocol(fake: FakeServer) -> None:
    fake.state.reject_tools = True
    fake.state.text = (
        'Reading. <tool_call>{"name": "read_file", "arguments": {"path": "b.py"}}</tool_call>'
    )
    reply = compat(fake).complete(HELLO, tools=TOOLS)
    assert [c.name for c in reply.tool_calls] == ["read_file"]
    assert reply.tool_calls[0].arguments == {"path": "b.py"}
    assert reply.text == "Reading."
    second = fake.log[-1].body
    assert "tools" not in second
    assert "<tool_call>" in second["messages"][0]["content"]


def test_429_cools_the_key_for_retry_after_and_uses_the_next(fake: FakeServer) -> None:
    fake.state.per_key["key-one"] = "429"
    fake.state.retry_after = "30"
    events: list[tuple[str, dict[str, Any]]] = []
    model = compat(
        fake,
        environ={"OPENAI_COMPAT_API_KEY": "key-one", "OPENAI_COMPAT_API_KEY_2": "key-two"},
        on_event=lambda event: events.append((event.kind, event.payload())),
    )
    assert model.complete(HELLO).text
    assert [e.key for e in fake.log] == ["key-one", "key-two"]
    cooled = [d for k, d in events if k == "model.key_cooled"]
    assert cooled == [{"model": model.name, "key": "OPENAI_COMPAT_API_KEY", "seconds": 30.0}]
    model.complete(HELLO)  # the cooling key is not tried again
    assert [e.key for e in fake.log] == ["key-one", "key-two", "key-two"]


def test_429_without_retry_after_uses_the_configured_cooldown(fake: FakeServer) -> None:
    fake.state.retry_after = ""
    fake.plan("429")
    model = compat(
        fake,
        environ={"OPENAI_COMPAT_API_KEY": "k1", "OPENAI_COMPAT_API_KEY_2": "k2"},
        cooldown_seconds=99.0,
    )
    model.complete(HELLO)
    remaining = model.candidates[0].cooling[0] - time.monotonic()
    assert 90 < remaining <= 99


def test_server_errors_timeouts_and_cut_streams_are_retried(fake: FakeServer) -> None:
    fake.state.hang_seconds = 1.0
    fake.plan("500", "hang", "cut")
    model = compat(fake, max_retries=3, timeout=0.3)
    reply = model.complete(HELLO)
    assert reply.text == "Hello from the fake server. "
    assert [e.behaviour for e in fake.log] == ["500", "hang", "cut", "ok"]
    assert model.totals.attempts == 4
    assert model.totals.calls == 1


def test_other_4xx_is_not_retried(fake: FakeServer) -> None:
    fake.plan("400")
    model = compat(fake)
    with pytest.raises(ProviderError, match="HTTP 400") as info:
        model.complete(HELLO)
    assert info.value.kind == "bad_request"
    assert len(fake.log) == 1


def test_refused_key_is_dropped_for_the_next(fake: FakeServer) -> None:
    fake.state.per_key["bad"] = "401"
    model = compat(
        fake, environ={"OPENAI_COMPAT_API_KEY": "bad", "OPENAI_COMPAT_API_KEY_2": "good"}
    )
    model.complete(HELLO)
    model.complete(HELLO)
    assert [e.key for e in fake.log] == ["bad", "good", "good"]


def test_persistent_failure_falls_back_along_the_chain(fake: FakeServer, tmp_path: Path) -> None:
    script = tmp_path / "fallback.jsonl"
    script.write_text('{"content": "from the fallback"}\n', encoding="utf-8")
    fake.state.per_key["only"] = "429"
    model = compat(fake, environ={"OPENAI_COMPAT_API_KEY": "only"}, fallback=[f"scripted:{script}"])
    reply = model.complete(HELLO)
    assert reply.text == "from the fallback"
    assert reply.model == f"scripted:{script}"


def test_everything_cooling_without_fallback_says_what_to_do(fake: FakeServer) -> None:
    fake.state.per_key["only"] = "429"
    fake.state.retry_after = "600"
    model = compat(fake, environ={"OPENAI_COMPAT_API_KEY": "only"})
    with pytest.raises(ProviderError, match="fallback") as info:
        model.complete(HELLO)
    assert info.value.kind == "exhausted"


def test_server_down_names_the_url_and_is_not_retried() -> None:
    model = make_model("openai-compat:http://127.0.0.1:9/v1#qwen")
    with pytest.raises(ProviderError) as info:
        model.complete(HELLO)
    assert info.value.kind == "unreachable"
    assert "http://127.0.0.1:9/v1" in str(info.value)
    assert model.totals.attempts == 1


def test_a_server_that_is_down_falls_back_and_says_so_only_when_something_follows(
    tmp_path: Path,
) -> None:
    script = tmp_path / "fallback.jsonl"
    script.write_text('{"content": "from the fallback"}\n', encoding="utf-8")
    events: list[str] = []
    down = "openai-compat:http://127.0.0.1:9/v1#qwen"
    model = make_model(
        down, fallback=[f"scripted:{script}"], on_event=lambda event: events.append(event.kind)
    )
    assert model.complete(HELLO).text == "from the fallback"
    assert events == ["model.request", "model.fallback", "model.reply"]
    events.clear()
    alone = make_model(down, on_event=lambda event: events.append(event.kind))
    with pytest.raises(ProviderError):
        alone.complete(HELLO)
    assert events == ["model.request"]  # no fallback to announce, and no reply


def test_model_missing_on_a_local_server_says_how_to_load_it(fake: FakeServer) -> None:
    fake.plan("404")
    model = make_model("lmstudio:qwen-coder", base_urls={"lmstudio": fake.url}, environ={})
    with pytest.raises(ProviderError) as info:
        model.complete(HELLO)
    assert info.value.status == 404 and info.value.kind == "bad_request"
    assert "not found" in str(info.value) and "lms server start" in str(info.value)
    assert model.totals.attempts == 1  # a 404 is not retried


def test_conversation_with_tool_results_reaches_the_wire(fake: FakeServer) -> None:
    convo: list[Message] = [
        {"role": "user", "content": "read a.py"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "a.py"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "print(1)"},
    ]
    compat(fake).complete(convo, tools=TOOLS)
    wire = fake.log[0].body["messages"]
    assert wire[1]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path": "a.py"}',
    }
    assert wire[2] == {"role": "tool", "tool_call_id": "c1", "content": "print(1)"}


def test_a_reply_the_caller_calls_complete_stops_the_stream_there(fake: FakeServer) -> None:
    pieces: list[str] = []
    reply = compat(fake).complete(HELLO, on_token=stop_after(2, pieces), max_tokens=50)
    assert (reply.text, reply.finish_reason) == ("".join(pieces), "stop")
    assert len(pieces) == 2 and len(fake.log) == 1  # one request, not retried
