"""The model catalog: context windows, prices and capabilities, as data.

Built-in entries live in ``catalog.toml`` next to this module; a mapping passed in (the CLI
passes config's ``[model.catalog]``) overrides fields of known models or adds new ones.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from importlib import resources
from typing import Any

from patchwright.llm.errors import ModelConfigError


@dataclass(frozen=True)
class ModelInfo:
    """One catalog entry. Prices are USD per million tokens."""

    spec: str
    context_window: int = 8192
    input: float = 0.0
    output: float = 0.0
    cached_input: float | None = None
    cache_write: float | None = None
    tools: bool = False
    caching: bool = False
    vision: bool = False
    temperature: bool = True  # accepts a sampling temperature (reasoning models do not)
    small: bool = False  # a few billion parameters or a "mini": no tool driving, whole files
    description: str = ""

    @property
    def provider(self) -> str:
        return self.spec.split(":", 1)[0]

    @property
    def model(self) -> str:
        return self.spec.split(":", 1)[1] if ":" in self.spec else ""

    @property
    def embedded(self) -> bool:
        """Runs in this process on the CPU (llama.cpp): prefill is slow, so prompts stay lean."""
        return self.provider == "local"

    @property
    def free_prompts(self) -> bool:
        """Prompt tokens cost nothing (the embedded model, a self-hosted server): a longer
        request whose prefix the server has cached is then the cheaper one to send."""
        return self.input == 0 and not self.cached_input

    def cost(self, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
        """USD for one call; cached prompt tokens are billed at ``cached_input``."""
        cached = min(cached_tokens, prompt_tokens)
        cached_price = self.input if self.cached_input is None else self.cached_input
        total = (
            (prompt_tokens - cached) * self.input
            + cached * cached_price
            + completion_tokens * self.output
        )
        return total / 1_000_000

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_FIELDS = {f.name for f in fields(ModelInfo)}


def _coerce(spec: str, data: Mapping[str, Any], base: ModelInfo | None) -> ModelInfo:
    unknown = set(data) - _FIELDS - {"spec"}
    if unknown:
        raise ModelConfigError(
            f"catalog entry {spec!r}: unknown field(s) {sorted(unknown)}; "
            f"known fields are {sorted(_FIELDS - {'spec'})}"
        )
    info = base or ModelInfo(spec=spec)
    try:
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key == "spec":
                continue
            if key == "context_window":
                changes[key] = int(value)
            elif key in {"input", "output", "cached_input", "cache_write"}:
                changes[key] = None if value is None else float(value)
            elif key in {"tools", "caching", "vision", "temperature", "small"}:
                changes[key] = bool(value)
            else:
                changes[key] = str(value)
        return replace(info, **changes)
    except (TypeError, ValueError) as exc:
        raise ModelConfigError(f"catalog entry {spec!r}: bad value ({exc})") from exc


# Size tags in a model name: 0.5b, 1.5b, 1b, 3b, -mini, :mini (not 13b, not 32b).
_SMALL_NAME = re.compile(r"(?<![\d.])(?:0\.5|1\.5|1|3)b\b|[-:]mini\b")


def looks_small(spec: str) -> bool:
    """For a model the catalog does not list: embedded and scripted models are small, and so
    is a name with a small size tag. Catalog entries say ``small`` themselves."""
    provider = spec.split(":", 1)[0]
    return provider in ("local", "scripted") or _SMALL_NAME.search(spec.lower()) is not None


def _builtin() -> dict[str, dict[str, Any]]:
    text = resources.files("patchwright.llm").joinpath("catalog.toml").read_text("utf-8")
    return tomllib.loads(text)


class Catalog:
    """Known models, with overrides merged in."""

    def __init__(self, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._entries: dict[str, ModelInfo] = {}
        for spec, data in _builtin().items():
            self._entries[spec] = _coerce(spec, data, None)
        for spec, override in (overrides or {}).items():
            if not isinstance(override, Mapping):
                raise ModelConfigError(f"catalog entry {spec!r} must be a table of fields")
            self._entries[spec] = _coerce(spec, override, self._entries.get(spec))

    def __iter__(self) -> Iterator[ModelInfo]:
        return iter(self._entries.values())

    def __contains__(self, spec: object) -> bool:
        return spec in self._entries

    def get(self, spec: str) -> ModelInfo | None:
        return self._entries.get(spec)

    def specs(self) -> list[str]:
        return list(self._entries)

    def suggest(self, spec: str, n: int = 3) -> list[str]:
        """Close catalog names for a misspelt spec (same provider first)."""
        pool = self.specs()
        provider = spec.split(":", 1)[0]
        same = [s for s in pool if s.startswith(provider + ":")]
        close = difflib.get_close_matches(spec, same, n=n, cutoff=0.4)
        for extra in difflib.get_close_matches(spec, pool, n=n, cutoff=0.5):
            if extra not in close:
                close.append(extra)
        return close[:n]
