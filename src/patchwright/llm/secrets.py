"""API keys: where they come from, and how to keep them out of every log.

Keys are read from the environment (``OPENAI_API_KEY``, ``OPENAI_API_KEY_2``, …) or
passed in from config. They are never printed: :func:`redact` masks every key value seen
so far plus anything that looks like a key, and :func:`key_label` names a key by its
origin (``OPENAI_API_KEY_2``) so logs can say which key cooled without showing it.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from patchwright.llm.providers import PROVIDERS

_known: set[str] = set()
_lock = threading.Lock()

# Shapes of common provider keys and bearer tokens.
_KEY_PATTERNS = re.compile(
    r"""
    sk-ant-[A-Za-z0-9_\-]{16,}        # Anthropic
  | sk-or-v1-[A-Za-z0-9]{16,}         # OpenRouter
  | sk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{16,}  # OpenAI, DeepSeek
  | gsk_[A-Za-z0-9]{16,}              # Groq
  | AIza[0-9A-Za-z_\-]{30,}           # Google
  | hf_[A-Za-z0-9]{24,}               # Hugging Face
  | gh[pousr]_[A-Za-z0-9]{30,}        # GitHub
  | (?<=Bearer\ )[A-Za-z0-9._\-]{12,}
    """,
    re.VERBOSE,
)
_ASSIGNMENT = re.compile(
    r"(?i)\b([A-Z0-9_]*(?:API_KEY|SECRET|TOKEN|PASSWORD)[A-Z0-9_]*)(\s*[=:]\s*)"
    r"(['\"]?)([^\s'\"]{6,})\3"
)
MASK = "[REDACTED]"


@dataclass(frozen=True)
class ApiKey:
    """A key and where it came from; ``repr`` never shows the value."""

    value: str
    label: str

    def __repr__(self) -> str:
        return f"ApiKey({self.label})"

    __str__ = __repr__


def remember_secret(value: str) -> None:
    """Register a secret value so :func:`redact` masks it wherever it appears."""
    if value and len(value) >= 6:
        with _lock:
            _known.add(value)


def secret_env_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """Names of environment variables that hold provider keys (for env scrubbing)."""
    env = os.environ if environ is None else environ
    prefixes = {name for p in PROVIDERS.values() for name in p.env}
    out = []
    for name in env:
        base = re.sub(r"_\d+$", "", name)
        if base in prefixes or re.search(r"(API_KEY|_SECRET|_TOKEN)(_\d+)?$", name):
            out.append(name)
    return sorted(out)


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """Mask known key values (registered, in provider env vars, ``extra``) and anything
    shaped like a key. Safe to call on any log line."""
    with _lock:
        values = set(_known)
    for name in secret_env_names():
        value = os.environ.get(name, "")
        if len(value) >= 6:
            values.add(value)
    values.update(v for v in extra if v and len(v) >= 6)
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, MASK)
    text = _KEY_PATTERNS.sub(MASK, text)
    return _ASSIGNMENT.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)


def keys_from_env(
    env_names: Iterable[str], environ: Mapping[str, str] | None = None
) -> list[ApiKey]:
    """Keys from ``NAME``, ``NAME_1``, ``NAME_2``, … for each name, in that order."""
    env = os.environ if environ is None else environ
    found: list[ApiKey] = []
    for base in env_names:
        numbered = []
        for name, value in env.items():
            m = re.fullmatch(re.escape(base) + r"(?:_(\d+))?", name)
            if m and value.strip():
                numbered.append((int(m.group(1) or 0), name, value.strip()))
        for _, name, value in sorted(numbered):
            found.append(ApiKey(value, name))
    return found


def collect_keys(
    provider: str,
    passed: Iterable[str] = (),
    environ: Mapping[str, str] | None = None,
) -> list[ApiKey]:
    """Keys for ``provider``: passed ones (config) first, then the environment; deduped."""
    prov = PROVIDERS.get(provider)
    keys = [ApiKey(v, f"{provider} key #{i + 1} (config)") for i, v in enumerate(passed) if v]
    if prov is not None:
        keys += keys_from_env(prov.env, environ)
    seen: set[str] = set()
    unique = []
    for key in keys:
        if key.value not in seen:
            seen.add(key.value)
            unique.append(key)
            remember_secret(key.value)
    return unique
