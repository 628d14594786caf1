"""``make_model(spec)``: turn a spec such as ``local:qwen2.5-coder-1.5b`` into a router.

Spec forms: ``<provider>:<model>`` (``openai:gpt-4o``, ``ollama:qwen2.5-coder:7b``),
``local:<name or /path/x.gguf>``, ``scripted:<path.jsonl>`` and
``openai-compat:<base_url>#<model>``. Validation happens here, before any call, so bad
input fails fast with a message that says what to do.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchwright.llm.catalog import Catalog, ModelInfo, looks_small
from patchwright.llm.errors import ModelConfigError
from patchwright.llm.providers import PROVIDERS, Provider, base_url_for
from patchwright.llm.router import Candidate, EventHook, Router
from patchwright.llm.secrets import ApiKey, collect_keys
from patchwright.llm.types import Caps, Model

DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: provider preset, model name, and base URL for openai-compat."""

    provider: Provider
    model: str
    base_url: str

    @property
    def spec(self) -> str:
        if self.provider.name == "openai-compat":
            return f"openai-compat:{self.base_url}#{self.model}"
        return f"{self.provider.name}:{self.model}"


def _suggest_provider(spec: str, catalog: Catalog) -> str:
    head = spec.split(":", 1)[0]
    close = difflib.get_close_matches(head, list(PROVIDERS), n=2, cutoff=0.5)
    bare = [s for s in catalog.specs() if s.split(":", 1)[1] == spec]
    hints = [f"{c}:{spec.split(':', 1)[1] if ':' in spec else '<model>'}" for c in close]
    hints += bare
    return f" Did you mean {' or '.join(repr(h) for h in hints)}?" if hints else ""


def parse_spec(spec: str, catalog: Catalog | None = None) -> ModelSpec:
    """Split and validate a spec; unknown providers get close-name suggestions."""
    catalog = catalog or Catalog()
    spec = spec.strip()
    if spec == "local":
        spec = DEFAULT_MODEL
    head, sep, rest = spec.partition(":")
    provider = PROVIDERS.get(head)
    if not sep or provider is None or not rest:
        raise ModelConfigError(
            f"unknown model {spec!r}: expected <provider>:<model> with provider one of "
            f"{', '.join(PROVIDERS)}." + _suggest_provider(spec, catalog)
        )
    if provider.name == "openai-compat":
        base_url, hash_, model = rest.rpartition("#")
        if not hash_ or not base_url.startswith(("http://", "https://")) or not model:
            raise ModelConfigError(
                f"bad spec {spec!r}: write openai-compat:<base_url>#<model>, "
                "e.g. openai-compat:http://127.0.0.1:8000/v1#qwen"
            )
        return ModelSpec(provider, model, base_url)
    return ModelSpec(provider, rest, provider.base_url)


def model_info(parsed: ModelSpec, catalog: Catalog) -> ModelInfo:
    """The catalog entry, or provider defaults where any model name is acceptable."""
    info = catalog.get(parsed.spec)
    if info is not None:
        return info
    if parsed.provider.any_model:
        tools = parsed.provider.protocol == "openai"
        return ModelInfo(
            spec=parsed.spec,
            context_window=parsed.provider.default_context,
            tools=tools,
            caching=parsed.provider.name == "local",
            small=looks_small(parsed.spec),
        )
    close = catalog.suggest(parsed.spec)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise ModelConfigError(
        f"unknown model {parsed.spec!r}.{hint} To use a model that is not in the catalog, "
        f'add [model.catalog."{parsed.spec}"] with context_window, input and output prices '
        "to your config (prices are needed to enforce cost caps)."
    )


def _keys_for(
    parsed: ModelSpec, keys: Mapping[str, Sequence[str]], environ: Mapping[str, str]
) -> list[ApiKey | None]:
    prov = parsed.provider
    found = collect_keys(prov.name, keys.get(prov.name, ()), environ)
    if found:
        return list(found)
    if prov.key_required:
        names = " or ".join(prov.env)
        raise ModelConfigError(
            f"{parsed.spec}: no API key; set {names} (more keys: {prov.env[0]}_2, "
            f"{prov.env[0]}_3, …) or add [model.keys] {prov.name} = [...] to your config"
        )
    return [None]


def build_backend(
    parsed: ModelSpec,
    info: ModelInfo,
    key: ApiKey | None,
    *,
    timeout: float,
    base_url: str | None = None,
    prompt_lookup: bool = True,
) -> Model:
    """The backend object for one candidate and key (heavy SDKs imported here, lazily);
    ``prompt_lookup``: the embedded model's speculative decoding."""
    proto = parsed.provider.protocol
    if proto == "scripted":
        from patchwright.llm.scripted import ScriptedModel

        return ScriptedModel(Path(parsed.model), name=parsed.spec)
    if proto == "local":
        from patchwright.llm.local import LocalModel

        return LocalModel(parsed.model, info=info, prompt_lookup=prompt_lookup)
    if proto == "anthropic":
        from patchwright.llm.anthropic_backend import AnthropicModel

        return AnthropicModel(
            parsed.model, info=info, api_key=key, timeout=timeout, base_url=base_url
        )
    from patchwright.llm.chat_backend import ChatBackend
    from patchwright.llm.ollama_backend import OllamaModel
    from patchwright.llm.openai_backend import OpenAIModel

    chat: type[ChatBackend] = OllamaModel if parsed.provider.name == "ollama" else OpenAIModel
    return chat(
        parsed.model,
        info=info,
        provider=parsed.provider,
        base_url=base_url or parsed.base_url,
        api_key=key,
        timeout=timeout,
    )


def _check_local_weights(name: str) -> None:
    """Fail at configuration time when no source of the weights exists at all."""
    import importlib.util

    from patchwright.llm import weights

    found = weights.locate(name)
    if isinstance(found, weights.ResolvedWeights):
        return
    spec = weights.KNOWN.get(name)
    if spec is None:
        raise ModelConfigError(f"local:{name}: {found}")
    if importlib.util.find_spec("huggingface_hub") is None:
        raise ModelConfigError(
            f"local:{name}: weights not found ({found}; huggingface_hub is not installed). "
            f"To fix it, {spec.install_hint()}; or pass --model local:/path/to/model.gguf"
        )


def make_candidate(
    spec: str,
    *,
    catalog: Catalog,
    keys: Mapping[str, Sequence[str]],
    environ: Mapping[str, str],
    timeout: float,
    base_urls: Mapping[str, str],
    prompt_lookup: bool = True,
) -> Candidate:
    parsed = parse_spec(spec, catalog)
    info = model_info(parsed, catalog)
    if parsed.provider.name == "scripted":
        from patchwright.llm.scripted import load_script

        load_script(Path(parsed.model))  # fail now on a missing or malformed script
    if parsed.provider.name == "local":
        _check_local_weights(parsed.model)
    key_list = _keys_for(parsed, keys, environ)
    base_url = base_urls.get(parsed.provider.name)
    if base_url is None and parsed.provider.name != "openai-compat":
        base_url = base_url_for(parsed.provider, environ)

    def build(key: ApiKey | None) -> Model:
        return build_backend(
            parsed, info, key, timeout=timeout, base_url=base_url, prompt_lookup=prompt_lookup
        )

    return Candidate(info, key_list, build)


def make_model(
    spec: str = DEFAULT_MODEL,
    *,
    fallback: Sequence[str] = (),
    caps: Caps | None = None,
    record: Path | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
    catalog: Mapping[str, Mapping[str, Any]] | Catalog | None = None,
    timeout: float = 600.0,
    cooldown_seconds: float = 1200.0,
    max_retries: int = 3,
    base_urls: Mapping[str, str] | None = None,
    environ: Mapping[str, str] | None = None,
    on_event: EventHook | None = None,
    prompt_lookup: bool = True,
    **router_options: Any,
) -> Router:
    """Build the router for ``spec`` with its fallback chain.

    ``keys`` maps provider → extra keys (config); env vars are read too. ``catalog``
    overrides/extends the built-in catalog. ``base_urls`` maps provider → URL to use
    instead of the preset (e.g. a remote Ollama). Raises :class:`ModelConfigError` for
    unknown models, missing keys and malformed specs.
    """
    cat = catalog if isinstance(catalog, Catalog) else Catalog(catalog)
    env = os.environ if environ is None else environ
    candidates = [
        make_candidate(
            s,
            catalog=cat,
            keys=keys or {},
            environ=env,
            timeout=timeout,
            base_urls=base_urls or {},
            prompt_lookup=prompt_lookup,
        )
        for s in (spec, *fallback)
    ]
    return Router(
        candidates,
        caps=caps,
        record=record,
        cooldown_seconds=cooldown_seconds,
        max_retries=max_retries,
        on_event=on_event,
        **router_options,
    )
