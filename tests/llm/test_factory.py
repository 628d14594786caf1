"""Specs, the catalog and configuration errors: bad input fails early and says what to do."""

from __future__ import annotations

import pytest

from patchwright.llm import Catalog, ModelConfigError, make_model, parse_spec
from patchwright.llm.factory import model_info


def test_specs_parse_into_provider_and_model() -> None:
    assert parse_spec("ollama:qwen2.5-coder:7b").model == "qwen2.5-coder:7b"
    compat = parse_spec("openai-compat:http://127.0.0.1:8000/v1#qwen")
    assert (compat.base_url, compat.model) == ("http://127.0.0.1:8000/v1", "qwen")
    assert parse_spec("local").spec == "local:qwen2.5-coder-1.5b"


@pytest.mark.parametrize(
    ("spec", "hint"),
    [
        ("olama:qwen2.5-coder", "ollama:qwen2.5-coder"),
        ("gpt-4o", "openai:gpt-4o"),
        ("openai:gpt-4o-mimi", "openai:gpt-4o-mini"),
    ],
)
def test_unknown_names_suggest_close_ones(spec: str, hint: str) -> None:
    with pytest.raises(ModelConfigError, match="unknown model") as info:
        make_model(spec, environ={"OPENAI_API_KEY": "sk-x" * 5})
    assert hint in str(info.value)


def test_openai_compat_needs_url_and_model() -> None:
    with pytest.raises(ModelConfigError, match="openai-compat:<base_url>#<model>"):
        parse_spec("openai-compat:qwen")


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(ModelConfigError, match=r"set OPENAI_API_KEY .*OPENAI_API_KEY_2"):
        make_model("openai:gpt-4o", environ={})
    with pytest.raises(ModelConfigError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        make_model("gemini:gemini-2.5-flash", environ={})


def test_fallback_chain_is_validated_too() -> None:
    with pytest.raises(ModelConfigError, match="ANTHROPIC_API_KEY"):
        make_model("ollama:qwen2.5-coder", fallback=["anthropic:claude-haiku-4-5"], environ={})


def test_local_servers_accept_any_model_and_need_no_key() -> None:
    model = make_model("lmstudio:some-model-i-loaded", environ={})
    assert model.name == "lmstudio:some-model-i-loaded"
    assert model.context_window == 8192


def test_catalog_overrides_and_extends() -> None:
    catalog = Catalog(
        {
            "openai:gpt-4o": {"input": 1.0},
            "openai:my-finetune": {"context_window": 16000, "input": 3, "output": 6, "tools": True},
        }
    )
    gpt4o = catalog.get("openai:gpt-4o")
    assert gpt4o is not None and gpt4o.input == 1.0 and gpt4o.output == 10.0
    mine = catalog.get("openai:my-finetune")
    assert mine is not None and mine.cost(1_000_000, 500_000) == pytest.approx(6.0)
    model = make_model(
        "openai:my-finetune",
        catalog={"openai:my-finetune": {"context_window": 16000, "input": 3, "output": 6}},
        environ={"OPENAI_API_KEY": "sk-" + "x" * 20},
    )
    assert model.context_window == 16000


def test_catalog_rejects_unknown_fields() -> None:
    with pytest.raises(ModelConfigError, match="unknown field"):
        Catalog({"openai:gpt-4o": {"prize": 1}})


def test_cached_tokens_are_billed_at_the_cached_rate() -> None:
    info = Catalog().get("openai:gpt-4o")
    assert info is not None
    assert info.cost(1000, 0, cached_tokens=1000) == pytest.approx(1000 * 1.25 / 1e6)
    assert info.cost(1000, 100) == pytest.approx((1000 * 2.5 + 100 * 10) / 1e6)


@pytest.mark.parametrize(
    ("spec", "small", "embedded"),
    [
        ("local:qwen2.5-coder-1.5b", True, True),  # the catalog says so
        ("openai:gpt-4o-mini", True, False),
        ("anthropic:claude-sonnet-4-5", False, False),
        ("ollama:qwen2.5-coder:1.5b", True, False),  # not listed: its size tag
        ("ollama:codellama:13b", False, False),  # 13b is not 3b
        ("ollama:qwen2.5-coder:32b", False, False),
        ("local:some-other", True, True),  # any embedded model
        ("scripted:replies.jsonl", True, False),
    ],
)
def test_the_catalog_entry_says_whether_a_model_is_small_and_embedded(
    spec: str, small: bool, embedded: bool
) -> None:
    catalog = Catalog()
    info = model_info(parse_spec(spec, catalog), catalog)
    assert (info.small, info.embedded) == (small, embedded)


def test_a_catalog_override_can_say_a_model_is_small() -> None:
    catalog = Catalog({"ollama:my-tiny": {"small": True}})
    assert model_info(parse_spec("ollama:my-tiny", catalog), catalog).small
    assert make_model("ollama:my-tiny", catalog={"ollama:my-tiny": {"small": True}}).info.small


@pytest.mark.parametrize("prompt_lookup", [True, False])
def test_the_embedded_models_prompt_lookup_setting_reaches_it(prompt_lookup: bool) -> None:
    from patchwright.agent.session import build_model
    from patchwright.config import Settings
    from patchwright.llm.local import LocalModel

    settings = Settings.model_validate({"model": {"prompt_lookup": prompt_lookup}})
    backend = build_model(settings).candidates[0].backend(0)
    assert isinstance(backend, LocalModel)
    assert backend.prompt_lookup is prompt_lookup
