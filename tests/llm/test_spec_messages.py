"""Specification of the model layer's data: keys and their redaction, tool calls, usage,
replies, token estimates and the JSONL script format.

Keys must never reach a log (masked by value and by shape, named by label); tool calls
arrive in several wire forms and become one; usage adds up; a reply the caller declares
complete stops where it was stopped; a recorded script replays exactly, any text included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchwright.llm import (
    ModelConfigError,
    Reply,
    ReplyComplete,
    ScriptedModel,
    ToolCall,
    Usage,
    append_record,
    redact,
)
from patchwright.llm.scripted import load_script
from patchwright.llm.secrets import (
    MASK,
    collect_keys,
    keys_from_env,
    remember_secret,
    secret_env_names,
)
from patchwright.llm.types import (
    Message,
    feed,
    messages_token_estimate,
    normalize_tools,
    parse_arguments,
    rough_token_count,
)

HELLO: list[Message] = [{"role": "user", "content": "hello"}]

# -- keys -------------------------------------------------------------------------------


def test_a_blank_key_variable_is_skipped_and_numbers_sort_as_numbers() -> None:
    env = {
        "GROQ_API_KEY": "   ",
        "GROQ_API_KEY_10": "ten",
        "GROQ_API_KEY_2": " two ",
        "GROQ_API_KEYS": "not a numbered sibling",
    }
    keys = keys_from_env(["GROQ_API_KEY"], env)
    assert [(k.label, k.value) for k in keys] == [
        ("GROQ_API_KEY_2", "two"),
        ("GROQ_API_KEY_10", "ten"),
    ]


def test_every_env_name_of_a_provider_is_read_in_order() -> None:
    env = {"GOOGLE_API_KEY": "google-key-000", "GEMINI_API_KEY": "gemini-key-000"}
    keys = collect_keys("gemini", [], env)
    assert [k.label for k in keys] == ["GEMINI_API_KEY", "GOOGLE_API_KEY"]


def test_a_provider_reads_no_other_providers_keys() -> None:
    assert collect_keys("ollama", [], {"OPENAI_API_KEY": "sk-" + "x" * 20}) == []


def test_empty_config_keys_are_ignored_and_the_rest_are_labelled_by_position() -> None:
    keys = collect_keys("openai", ["", "cfg-key-aaaaaaaa", "cfg-key-bbbbbbbb"], {})
    assert [k.label for k in keys] == ["openai key #2 (config)", "openai key #3 (config)"]


# -- redaction --------------------------------------------------------------------------


def test_a_remembered_secret_is_masked_wherever_it_appears() -> None:
    remember_secret("spec-remembered-7f3a9c")
    line = "url=https://x/?k=spec-remembered-7f3a9c&again=spec-remembered-7f3a9c"
    assert redact(line) == f"url=https://x/?k={MASK}&again={MASK}"


def test_a_longer_secret_is_masked_whole_even_when_a_shorter_one_is_inside_it() -> None:
    out = redact(
        "abc: spec-inner-9d2e1b-and-more", extra=["spec-inner-9d2e1b", "spec-inner-9d2e1b-and-more"]
    )
    assert out == f"abc: {MASK}"


def test_values_shorter_than_six_characters_are_not_treated_as_secrets() -> None:
    remember_secret("ab12")
    assert redact("ab12 is a version", extra=["x1"]) == "ab12 is a version"


def test_a_provider_key_in_the_environment_is_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY_3", "shapeless-openrouter-value")
    assert "shapeless" not in redact("sent shapeless-openrouter-value to the server")


@pytest.mark.parametrize(
    "secret",
    [
        "sk-ant-api03-abcdefghijklmnop1234",
        "sk-or-v1-abcdefghijklmnop1234",
        "hf_abcdefghijklmnopqrstuvwxyz01",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ],
)
def test_key_shaped_strings_are_masked_without_being_known(secret: str) -> None:
    assert redact(f"header {secret} trailer") == f"header {MASK} trailer"


def test_secret_assignments_keep_the_name_and_lose_the_value() -> None:
    out = redact('password: "hunter2hunter" and DB_SECRET = s3cr3tvalue')
    assert out == f"password: {MASK} and DB_SECRET = {MASK}"


def test_ordinary_text_is_left_alone() -> None:
    for text in ("the task-list has sk-short items", "token count: 12", "API_KEY=abc"):
        assert redact(text) == text


def test_numbered_and_suffixed_key_variables_are_named_for_scrubbing() -> None:
    env = {
        "ANTHROPIC_API_KEY_4": "x",
        "SERVICE_SECRET": "x",
        "CI_JOB_TOKEN_2": "x",
        "TOKENIZERS_PARALLELISM": "false",
        "PATH": "/bin",
    }
    assert secret_env_names(env) == ["ANTHROPIC_API_KEY_4", "CI_JOB_TOKEN_2", "SERVICE_SECRET"]


# -- tool calls and tool specs ------------------------------------------------------------


def test_a_tool_call_in_the_openai_wire_form_is_parsed() -> None:
    raw = {
        "id": "call_9",
        "type": "function",
        "function": {"name": "edit", "arguments": '{"a": 1}'},
    }
    assert ToolCall.coerce(raw) == ToolCall("call_9", "edit", {"a": 1})


def test_a_tool_call_without_an_id_is_numbered_by_its_position() -> None:
    assert ToolCall.coerce({"name": "run", "arguments": {}}, index=4).id == "call_4"


def test_a_tool_call_without_a_name_is_refused() -> None:
    with pytest.raises(ValueError, match="without a name"):
        ToolCall.coerce({"id": "x", "arguments": {}})


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("", {}),
        ("  ", {}),
        ('{"path": "a.py"}', {"path": "a.py"}),
        ("[1, 2]", {"_raw": "[1, 2]"}),
        ("{broken", {"_raw": "{broken"}),
    ],
)
def test_arguments_that_are_not_a_json_object_are_kept_raw(
    text: str, parsed: dict[str, object]
) -> None:
    assert parse_arguments(text) == parsed


def test_tool_specs_in_either_form_flatten_to_name_description_parameters() -> None:
    flat = normalize_tools(
        [
            {"type": "function", "function": {"name": "read", "description": "Read a file"}},
            {"name": "run", "parameters": {"type": "object", "properties": {"cmd": {}}}},
        ]
    )
    assert flat == [
        {
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {}},
        },
        {
            "name": "run",
            "description": "",
            "parameters": {"type": "object", "properties": {"cmd": {}}},
        },
    ]
    with pytest.raises(ValueError, match="without a name"):
        normalize_tools([{"description": "nameless"}])


# -- usage, replies, estimates ---------------------------------------------------------------


def test_usage_adds_field_by_field_and_totals_prompt_plus_completion() -> None:
    total = Usage(10, 5, 2) + Usage(1, 1, 1)
    assert total == Usage(11, 6, 3)
    assert total.total_tokens == 17
    assert total.to_dict() == {"prompt_tokens": 11, "completion_tokens": 6, "cached_tokens": 3}


def test_a_reply_becomes_the_assistant_message_of_the_next_turn() -> None:
    assert Reply(text="plain").as_message() == {"role": "assistant", "content": "plain"}
    msg = Reply(text="", tool_calls=[ToolCall("c1", "read", {"p": 1})]).as_message()
    assert msg["tool_calls"] == [{"id": "c1", "name": "read", "arguments": {"p": 1}}]


def test_the_rough_count_errs_high_at_about_three_and_a_half_characters_a_token() -> None:
    assert rough_token_count("") == 0
    assert rough_token_count("a") == 1
    assert rough_token_count("x" * 7) == 2
    assert rough_token_count("x" * 8) == 3
    assert rough_token_count("x" * 3500) == 1000


def test_a_conversation_estimate_counts_each_message_and_its_tool_calls() -> None:
    def count(text: str) -> int:
        return len(text)

    bare = messages_token_estimate([], count)
    one = messages_token_estimate([{"role": "user", "content": "abcd"}], count)
    assert one - bare == 4 + 4
    call = {"id": "1", "name": "t", "arguments": {}}
    with_call = messages_token_estimate(
        [{"role": "assistant", "content": "", "tool_calls": [call]}], count
    )
    assert with_call - bare == 4 + 8 + len(json.dumps(call))


def test_a_callback_signals_completion_by_raising_reply_complete() -> None:
    seen: list[str] = []

    def stop_at_b(piece: str) -> None:
        seen.append(piece)
        if piece == "b":
            raise ReplyComplete

    assert feed(stop_at_b, "a") is True
    assert feed(stop_at_b, "b") is False
    assert feed(None, "anything") is True
    assert seen == ["a", "b"]


def test_a_scripted_reply_stopped_early_keeps_the_text_so_far_and_drops_its_calls() -> None:
    model = ScriptedModel(
        [{"content": "one two three four", "tool_calls": [{"name": "t", "arguments": {}}]}]
    )

    def stop_after_two(piece: str) -> None:
        if "two" in piece:
            raise ReplyComplete

    reply = model.complete(HELLO, on_token=stop_after_two)
    assert reply.text == "one two"
    assert reply.tool_calls == []
    assert reply.usage.completion_tokens == rough_token_count("one two")


# -- the script format ----------------------------------------------------------------------


def test_blank_lines_and_null_content_are_allowed_in_a_script(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"content": null}\n\n   \n{"content": "b"}\n', encoding="utf-8")
    assert [text for text, _ in load_script(script)] == ["", "b"]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('["a list"]', "expected a JSON object"),
        ('{"content": 5}', "'content' must be a string"),
        ('{"content": "", "tool_calls": {"name": "t"}}', "'tool_calls' must be a list"),
        ('{"content": "", "tool_calls": [{"arguments": {}}]}', "bad tool call"),
    ],
)
def test_a_malformed_script_entry_is_reported_with_its_line(
    tmp_path: Path, line: str, problem: str
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"content": "fine"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(ModelConfigError, match=rf"s\.jsonl:2: .*{problem}"):
        load_script(script)


def test_a_recorded_reply_replays_with_any_text_intact(tmp_path: Path) -> None:
    record = tmp_path / "deep" / "rec.jsonl"
    text = 'naïve “quotes” 日本語\n\ttab and a "json" line\n'
    call = ToolCall("c1", "write", {"path": "ü.py", "body": "x\ny"})
    append_record(record, Reply(text=text))
    append_record(record, Reply(text="", tool_calls=[call]))
    replay = ScriptedModel(record)
    assert replay.remaining == 2
    assert replay.complete(HELLO).text == text
    assert replay.complete(HELLO).tool_calls == [call]
    assert replay.remaining == 0
