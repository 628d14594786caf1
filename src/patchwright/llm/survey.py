"""What is usable here: keys present, embedded weights found, local servers answering.

Local servers are probed once each with a short timeout (``GET <base>/models``); models
a server offers that the catalog does not list are added, so ``patchwright models``
shows what the user actually pulled.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patchwright.llm import weights
from patchwright.llm.catalog import Catalog, ModelInfo
from patchwright.llm.providers import PROVIDERS, Provider, base_url_for
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


def probe_server(base_url: str, timeout: float = 0.3) -> list[str] | None:
    """Model ids a local OpenAI-protocol server offers; None when it does not answer."""
    import httpx

    try:
        response = httpx.get(base_url.rstrip("/") + "/models", timeout=timeout)
    except httpx.HTTPError:
        return None
    if response.status_code >= 500:
        return None
    try:
        data = response.json().get("data", [])
        return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]
    except (ValueError, AttributeError):
        return []


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
    probe_timeout: float = 0.3,
) -> list[Availability]:
    """Every catalog model (plus models local servers offer) with its availability."""
    env = os.environ if environ is None else environ
    servers: dict[str, list[str] | None] = {}
    rows: list[Availability] = []
    infos = list(catalog)
    for prov in PROVIDERS.values():
        if prov.local_server and prov.base_url:
            url = base_url_for(prov, env)
            offered = servers[prov.name] = probe_server(url, probe_timeout)
            known = {i.model for i in infos if i.provider == prov.name}
            for model_id in offered or ():
                if model_id not in known:
                    infos.append(
                        ModelInfo(f"{prov.name}:{model_id}", prov.default_context, tools=True)
                    )
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
    provider: Provider, info: ModelInfo, offered: list[str] | None, env: Mapping[str, str]
) -> tuple[bool, str]:
    url = base_url_for(provider, env)
    if offered is None:
        return False, f"no server at {url}; {provider.start_hint.format(model=info.model)}"
    if offered and info.model not in offered and f"{info.model}:latest" not in offered:
        return (
            False,
            f"server at {url} does not offer it; {provider.start_hint.format(model=info.model)}",
        )
    return True, f"server answering at {url}"
