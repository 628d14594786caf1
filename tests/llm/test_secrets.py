"""Keys: found in env in order, never shown, masked wherever they appear."""

from __future__ import annotations

import pytest

from patchwright.llm import make_model, redact
from patchwright.llm.secrets import ApiKey, collect_keys, keys_from_env, secret_env_names


def test_numbered_env_keys_come_in_order() -> None:
    env = {"OPENAI_API_KEY_3": "c" * 10, "OPENAI_API_KEY": "a" * 10, "OPENAI_API_KEY_2": "b" * 10}
    keys = keys_from_env(["OPENAI_API_KEY"], env)
    assert [k.label for k in keys] == ["OPENAI_API_KEY", "OPENAI_API_KEY_2", "OPENAI_API_KEY_3"]


def test_config_keys_come_first_and_duplicates_are_dropped() -> None:
    keys = collect_keys(
        "groq", ["gsk_fromconfig0000000000"], {"GROQ_API_KEY": "gsk_fromconfig0000000000"}
    )
    assert len(keys) == 1
    assert "config" in keys[0].label


def test_a_key_never_shows_in_its_repr() -> None:
    key = ApiKey("sk-very-secret-value-1234567890", "OPENAI_API_KEY")
    assert "secret" not in repr(key) and "secret" not in str(key)
    assert "OPENAI_API_KEY" in repr(key)


def test_redact_masks_known_values_and_key_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "plainvalue-without-shape-42")
    text = (
        "using plainvalue-without-shape-42 and sk-proj-abcdefghijklmnopqrstuvwx, "
        "Authorization: Bearer abcdef0123456789xyz, ANTHROPIC_API_KEY=whatever123, "
        "gsk_0123456789abcdefABCDEF AIzaSyA0123456789abcdefghijklmnopqrstu"
    )
    out = redact(text)
    for secret in (
        "plainvalue-without-shape-42",
        "sk-proj-abcdefghijklmnopqrstuvwx",
        "abcdef0123456789xyz",
        "whatever123",
        "gsk_0123456789abcdefABCDEF",
        "AIzaSyA0123456789abcdefghijklmnopqrstu",
    ):
        assert secret not in out
    assert out.count("[REDACTED]") == 6
    assert redact("nothing secret here: 12345") == "nothing secret here: 12345"


def test_keys_passed_in_are_redacted_afterwards() -> None:
    make_model("openai:gpt-4o", keys={"openai": ["cfg-key-zzzzzzzzzz"]}, environ={})
    assert redact("the key was cfg-key-zzzzzzzzzz") == "the key was [REDACTED]"


def test_secret_env_names_lists_key_variables_for_scrubbing() -> None:
    env = {"OPENAI_API_KEY_2": "x", "GEMINI_API_KEY": "y", "HOME": "/root", "MY_TOKEN": "z"}
    assert secret_env_names(env) == ["GEMINI_API_KEY", "MY_TOKEN", "OPENAI_API_KEY_2"]
