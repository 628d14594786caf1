"""Specification of the model catalog, model specs and provider presets.

What a model *is* to the rest of patchwright: its catalog entry (context window, prices,
``small``/``tools``/``temperature`` capabilities, embedded or not), how a ``provider:model``
spec is split and validated, and where each provider is reached. All pure: no server,
no key, no weights.
"""

from __future__ import annotations

import pytest

from patchwright.llm import Catalog, ModelConfigError, ModelInfo, parse_spec
from patchwright.llm.catalog import looks_small
from patchwright.llm.factory import DEFAULT_MODEL, model_info
from patchwright.llm.providers import PROVIDERS, base_url_for, is_loopback

# -- the built-in catalog is consistent with itself --------------------------------------


def test_every_built_in_entry_names_a_known_provider_and_parses_back_to_itself() -> None:
    catalog = Catalog()
    assert catalog.specs(), "the built-in catalog is not empty"
    for info in catalog:
        assert info.provider in PROVIDERS, info.spec
        assert info.model, info.spec
        assert parse_spec(info.spec, catalog).spec == info.spec


def test_every_built_in_entry_has_a_usable_window_and_no_negative_price() -> None:
    for info in Catalog():
        assert info.context_window >= 8192, info.spec
        assert min(info.input, info.output) >= 0.0, info.spec
        if info.cached_input is not None:
            assert info.cached_input <= info.input, f"{info.spec}: a cache read costs more"


def test_the_default_model_is_in_the_catalog_and_is_a_small_embedded_one() -> None:
    info = Catalog().get(DEFAULT_MODEL)
    assert info is not None
    assert info.embedded and info.small
    assert not info.tools, "the embedded model drives no native tools"
    assert info.cost(10_000, 10_000) == 0.0, "running in process costs nothing"


def test_a_catalog_mini_model_is_marked_small_and_a_flagship_is_not() -> None:
    catalog = Catalog()
    minis = [i for i in catalog if "-mini" in i.model]
    assert minis
    assert all(i.small for i in minis)
    for flagship in ("openai:gpt-5", "openai:gpt-4o", "anthropic:claude-sonnet-4-5"):
        info = catalog.get(flagship)
        assert info is not None and not info.small


def test_reasoning_models_and_anthropics_own_models_take_no_temperature() -> None:
    catalog = Catalog()
    for spec in ("openai:gpt-5", "openai:o4-mini", "anthropic:claude-haiku-4-5"):
        info = catalog.get(spec)
        assert info is not None and info.temperature is False, spec
    gpt4o = catalog.get("openai:gpt-4o")
    assert gpt4o is not None and gpt4o.temperature is True


def test_the_flag_defaults_of_an_entry_are_the_cautious_ones() -> None:
    info = ModelInfo(spec="x:y")
    assert (info.tools, info.caching, info.vision, info.small) == (False, False, False, False)
    assert info.temperature is True
    assert info.context_window == 8192


# -- ModelInfo ------------------------------------------------------------------------


def test_provider_and_model_split_at_the_first_colon_only() -> None:
    info = ModelInfo(spec="ollama:qwen2.5-coder:32b")
    assert (info.provider, info.model) == ("ollama", "qwen2.5-coder:32b")
    assert ModelInfo(spec="bare").model == ""


def test_only_the_local_provider_is_embedded() -> None:
    assert ModelInfo(spec="local:anything").embedded
    assert not ModelInfo(spec="ollama:qwen2.5-coder").embedded
    assert not ModelInfo(spec="llamacpp:local-model").embedded


def test_cost_is_usd_per_million_tokens() -> None:
    info = ModelInfo(spec="p:m", input=2.0, output=8.0)
    assert info.cost(1_000_000, 0) == pytest.approx(2.0)
    assert info.cost(0, 1_000_000) == pytest.approx(8.0)
    assert info.cost(500_000, 250_000) == pytest.approx(1.0 + 2.0)


def test_cached_tokens_without_a_cached_price_cost_the_full_input_price() -> None:
    info = ModelInfo(spec="p:m", input=3.0, output=0.0)
    assert info.cost(1000, 0, cached_tokens=600) == info.cost(1000, 0)


def test_more_cached_tokens_than_prompt_tokens_never_make_a_call_cheaper() -> None:
    info = ModelInfo(spec="p:m", input=4.0, cached_input=1.0, output=0.0)
    all_cached = info.cost(1000, 0, cached_tokens=1000)
    assert info.cost(1000, 0, cached_tokens=5000) == pytest.approx(all_cached)
    assert all_cached == pytest.approx(1000 * 1.0 / 1e6)


def test_to_dict_lists_every_field_and_round_trips() -> None:
    info = Catalog().get("anthropic:claude-haiku-4-5")
    assert info is not None
    data = info.to_dict()
    assert data["spec"] == "anthropic:claude-haiku-4-5"
    assert ModelInfo(**data) == info


# -- overrides ------------------------------------------------------------------------


def test_override_values_are_coerced_to_the_fields_types() -> None:
    catalog = Catalog({"ollama:mine": {"context_window": "4096", "input": 1, "tools": 1}})
    info = catalog.get("ollama:mine")
    assert info is not None
    assert info.context_window == 4096 and isinstance(info.context_window, int)
    assert info.input == 1.0 and isinstance(info.input, float)
    assert info.tools is True


def test_a_bad_override_value_is_a_config_error_naming_the_entry() -> None:
    with pytest.raises(ModelConfigError, match=r"'ollama:mine'.*bad value"):
        Catalog({"ollama:mine": {"context_window": "big"}})


def test_an_override_that_is_not_a_table_is_a_config_error() -> None:
    with pytest.raises(ModelConfigError, match="must be a table of fields"):
        Catalog({"openai:gpt-4o": 5})  # type: ignore[dict-item]


def test_an_override_keeps_the_fields_it_does_not_name() -> None:
    base = Catalog().get("openai:gpt-4.1")
    changed = Catalog({"openai:gpt-4.1": {"description": "pinned"}}).get("openai:gpt-4.1")
    assert base is not None and changed is not None
    assert changed.description == "pinned"
    assert (changed.input, changed.output, changed.tools) == (base.input, base.output, base.tools)


def test_an_override_reaches_only_the_catalog_it_was_given_to() -> None:
    Catalog({"openai:gpt-4o": {"input": 99.0}})
    fresh = Catalog().get("openai:gpt-4o")
    assert fresh is not None and fresh.input != 99.0


def test_a_misspelt_spec_gets_suggestions_from_its_own_provider_first() -> None:
    close = Catalog().suggest("anthropic:claude-sonet-4-5")
    assert close[0] == "anthropic:claude-sonnet-4-5"
    assert all(s.startswith("anthropic:") for s in close)
    assert len(Catalog().suggest("gemini:gemini-2.5-flsh", n=1)) == 1


# -- the size heuristic for unlisted models -----------------------------------------------


@pytest.mark.parametrize(
    ("spec", "small"),
    [
        ("ollama:llama3.2:1b", True),
        ("ollama:qwen2.5:0.5b", True),
        ("ollama:phi:3b", True),
        ("ollama:some-model-mini", True),
        ("ollama:phi3:mini", True),
        ("ollama:llama3:8b", False),
        ("ollama:deepseek:33b", False),
        ("ollama:qwen2.5:14b", False),
        ("ollama:minimax", False),
        ("vllm:Qwen/Qwen2.5-Coder-3B-Instruct", True),
    ],
)
def test_a_small_size_tag_in_an_unlisted_name_marks_it_small(spec: str, small: bool) -> None:
    assert looks_small(spec) is small


# -- parsing specs --------------------------------------------------------------------


def test_spaces_around_a_spec_are_ignored() -> None:
    assert parse_spec("  openai:gpt-4o \n").spec == "openai:gpt-4o"


@pytest.mark.parametrize("spec", ["openai:", ":gpt-4o", "foo:bar", "openai", ""])
def test_a_spec_without_both_a_known_provider_and_a_model_is_refused(spec: str) -> None:
    with pytest.raises(ModelConfigError, match="expected <provider>:<model>") as info:
        parse_spec(spec)
    assert "openai-compat" in str(info.value), "the message lists the providers"


def test_openai_compat_splits_at_the_last_hash_and_needs_an_http_url() -> None:
    parsed = parse_spec("openai-compat:https://h.example/v1#frag#qwen")
    assert (parsed.base_url, parsed.model) == ("https://h.example/v1#frag", "qwen")
    with pytest.raises(ModelConfigError, match="openai-compat:<base_url>#<model>"):
        parse_spec("openai-compat:ftp://h/v1#qwen")
    with pytest.raises(ModelConfigError, match="openai-compat:<base_url>#<model>"):
        parse_spec("openai-compat:http://h/v1#")


def test_an_unlisted_model_of_a_hosted_provider_is_refused_with_the_config_fix() -> None:
    catalog = Catalog()
    with pytest.raises(ModelConfigError) as info:
        model_info(parse_spec("openai:gpt-4o-mimi", catalog), catalog)
    message = str(info.value)
    assert "openai:gpt-4o-mini" in message
    assert '[model.catalog."openai:gpt-4o-mimi"]' in message


@pytest.mark.parametrize(
    ("spec", "tools", "caching", "window"),
    [
        ("ollama:my-pull", True, False, 32768),
        ("lmstudio:loaded", True, False, 8192),
        ("local:/models/x.gguf", False, True, 32768),
        ("scripted:replies.jsonl", False, False, 131072),
    ],
)
def test_an_unlisted_model_of_a_local_server_gets_its_providers_defaults(
    spec: str, tools: bool, caching: bool, window: int
) -> None:
    catalog = Catalog()
    info = model_info(parse_spec(spec, catalog), catalog)
    assert (info.tools, info.caching, info.context_window) == (tools, caching, window)
    assert info.cost(1000, 1000) == 0.0


# -- providers ------------------------------------------------------------------------


def test_hosted_providers_require_a_key_and_local_servers_do_not() -> None:
    for name in ("openai", "anthropic", "gemini", "openrouter", "deepseek", "groq"):
        assert PROVIDERS[name].key_required and PROVIDERS[name].env, name
        assert PROVIDERS[name].base_url.startswith("https://"), name
    for name in ("ollama", "lmstudio", "vllm", "llamacpp"):
        provider = PROVIDERS[name]
        assert not provider.key_required and provider.local_server and provider.any_model
        assert is_loopback(provider.base_url), name
        assert provider.start_hint, "a server that is down comes with how to start it"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://127.5.5.5/", True),
        ("http://localhost:11434", True),
        ("http://[::1]:8000/v1", True),
        ("http://LOCALHOST/v1", True),
        ("https://localhost.example.com/v1", False),
        ("https://api.openai.com/v1", False),
        ("http://10.0.0.5:11434", False),
    ],
)
def test_loopback_means_this_machine_only(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_a_base_url_variable_overrides_the_preset_without_a_trailing_slash() -> None:
    env = {"PATCHWRIGHT_OPENAI_COMPAT_BASE_URL": "http://box:9000/v1/"}
    assert base_url_for(PROVIDERS["openai-compat"], env) == "http://box:9000/v1"
    assert base_url_for(PROVIDERS["groq"], {}) == PROVIDERS["groq"].base_url


def test_ollama_host_is_read_as_host_port_or_url_and_the_own_variable_wins() -> None:
    ollama = PROVIDERS["ollama"]
    assert base_url_for(ollama, {"OLLAMA_HOST": "10.0.0.5:11434"}) == "http://10.0.0.5:11434/v1"
    assert base_url_for(ollama, {"OLLAMA_HOST": "https://gpu.box/"}) == "https://gpu.box/v1"
    both = {"OLLAMA_HOST": "10.0.0.5:11434", "PATCHWRIGHT_OLLAMA_BASE_URL": "http://x/v1"}
    assert base_url_for(ollama, both) == "http://x/v1"
    assert (
        base_url_for(PROVIDERS["vllm"], {"OLLAMA_HOST": "10.0.0.5"}) == PROVIDERS["vllm"].base_url
    )
