"""What is usable here: keys present, embedded weights found, local servers answering.

Local servers are probed once each, all at once, with a short timeout (``GET
<base>/models``, Ollama ``/api/tags``); models a server offers that the catalog does not
list are added, so ``patchwright models`` shows what the user actually pulled.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwright.llm import weights
from patchwright.llm.catalog import Catalog, ModelInfo
from patchwright.llm.providers import PROVIDERS, Provider, base_url_for, is_loopback
from patchwright.llm.secrets import collect_keys


@dataclass(frozen=True)
class Availability:
    """One catalog row and whether it can be used on this machine, and why (not)."""

    info: ModelInfo
    usable: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.info.to_dict(),
            "provider": self.info.provider,
            "model": self.info.model,
            "usable": self.usable,
            "reason": self.reason,
        }


def _model_ids(provider: str, payload: Any) -> list[str] | None:
    """Model ids in a listing: OpenAI's ``{"data": [{"id"}]}`` or Ollama's
    ``/api/tags`` ``{"models": [{"name"}]}``; None when it is neither."""
    if not isinstance(payload, dict):
        return None
    field, key = ("models", "name") if provider == "ollama" else ("data", "id")
    items = payload.get(field)
    if not isinstance(items, list):
        return None
    return [str(m[key]) for m in items if isinstance(m, dict) and m.get(key)]


PROBE_SECONDS = 2.0  # a refused loopback port answers at once; a busy machine's server may not


def probe_server(
    provider: str, base_url: str, timeout: float = PROBE_SECONDS, key: str | None = None
) -> list[str] | str:
    """Model ids a local server offers, or a sentence saying why it cannot be used.

    One short GET: ``/api/tags`` for Ollama (the API its backend speaks), ``<base>/models``
    for OpenAI-protocol servers. Loopback probes bypass proxy settings."""
    import httpx

    from patchwright.llm.ollama_backend import native_root

    if provider == "ollama":
        url = native_root(base_url) + "/api/tags"
    else:
        url = base_url.rstrip("/") + "/models"
    try:
        headers = {"authorization": f"Bearer {key}"} if key else {}
        response = httpx.get(url, headers=headers, timeout=timeout, trust_env=not is_loopback(url))
    except httpx.HTTPError:
        return f"no server at {base_url}"
    if response.status_code in (401, 403):
        return f"the server at {base_url} refused the request (HTTP {response.status_code})"
    try:
        ids = _model_ids(provider, response.json()) if response.status_code == 200 else None
    except ValueError:
        ids = None
    if ids is None:
        return f"something answers at {base_url}, but not as a {provider} server ({url})"
    return ids


def probe_all(
    providers: Sequence[Provider],
    env: Mapping[str, str],
    timeout: float,
    keys: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str] | str]:
    """Probe every local server at once (threads), so a silent port costs one timeout.
    A server that takes a key (vLLM ``--api-key``) is asked with the first one found."""
    from concurrent.futures import ThreadPoolExecutor

    if not providers:
        return {}
    with ThreadPoolExecutor(max_workers=len(providers)) as pool:
        futures = {}
        for p in providers:
            found = collect_keys(p.name, (keys or {}).get(p.name, ()), env)
            key = found[0].value if found else None
            futures[p.name] = pool.submit(probe_server, p.name, base_url_for(p, env), timeout, key)
        return {name: future.result() for name, future in futures.items()}


def _local(info: ModelInfo) -> tuple[bool, str]:
    if importlib.util.find_spec("llama_cpp") is None:
        return False, "llama-cpp-python is not installed (uv sync --extra embedded)"
    found = weights.locate(info.model)
    if isinstance(found, weights.ResolvedWeights):
        if found.source == "packages":
            return True, "weights from installed packages (assembled into the cache on first use)"
        return True, f"weights in {found.path}"
    spec = weights.KNOWN.get(info.model)
    return False, spec.install_hint() if spec else found


def _keyed(provider: Provider, keys: Sequence[str], environ: Mapping[str, str]) -> tuple[bool, str]:
    found = collect_keys(provider.name, keys, environ)
    if found:
        return True, f"{len(found)} key(s): {', '.join(k.label for k in found)}"
    return False, f"set {' or '.join(provider.env)}"


def survey(
    catalog: Catalog,
    *,
    keys: Mapping[str, Sequence[str]] | None = None,
    environ: Mapping[str, str] | None = None,
    probe_timeout: float = PROBE_SECONDS,
) -> list[Availability]:
    """Every catalog model (plus models local servers offer) with its availability."""
    env = os.environ if environ is None else environ
    infos = list(catalog)
    local = [p for p in PROVIDERS.values() if p.local_server and p.base_url]
    servers = probe_all(local, env, probe_timeout, keys)
    for name, offered in servers.items():
        known = {i.model for i in infos if i.provider == name}
        default_context = PROVIDERS[name].default_context
        for model_id in offered if isinstance(offered, list) else ():
            if model_id.removesuffix(":latest") not in known:
                infos.append(ModelInfo(f"{name}:{model_id}", default_context, tools=True))
    rows: list[Availability] = []
    for info in infos:
        provider = PROVIDERS.get(info.provider)
        if provider is None:
            rows.append(Availability(info, False, f"unknown provider {info.provider!r}"))
        elif provider.protocol == "local":
            rows.append(Availability(info, *_local(info)))
        elif provider.local_server and provider.name in servers:
            rows.append(Availability(info, *_server(provider, info, servers[provider.name], env)))
        else:
            rows.append(
                Availability(info, *_keyed(provider, (keys or {}).get(provider.name, ()), env))
            )
    return rows


def _server(
    provider: Provider, info: ModelInfo, offered: list[str] | str, env: Mapping[str, str]
) -> tuple[bool, str]:
    url = base_url_for(provider, env)
    hint = provider.start_hint.format(model=info.model)
    if isinstance(offered, str):
        return False, f"{offered}; {hint}"
    if info.model not in offered and f"{info.model}:latest" not in offered:
        return False, f"server at {url} does not offer it; {hint}"
    return True, f"server answering at {url}"
