"""Provider presets: how each ``provider:`` prefix is reached and which keys it takes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Protocol_ = Literal["local", "openai", "anthropic", "scripted"]


@dataclass(frozen=True)
class Provider:
    """How to reach one provider. ``env`` lists key variables, first is the main one."""

    name: str
    protocol: Protocol_
    base_url: str = ""
    env: tuple[str, ...] = ()
    key_required: bool = False
    local_server: bool = False
    any_model: bool = False  # a local server serves whatever the user pulled/loaded
    default_context: int = 8192
    start_hint: str = ""


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("local", "local", any_model=True, default_context=32768),
        Provider("scripted", "scripted", any_model=True, default_context=131072),
        Provider(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            ("OPENAI_API_KEY",),
            key_required=True,
        ),
        Provider(
            "anthropic",
            "anthropic",
            "https://api.anthropic.com",
            ("ANTHROPIC_API_KEY",),
            key_required=True,
        ),
        Provider(
            "gemini",
            "openai",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            key_required=True,
        ),
        Provider(
            "openrouter",
            "openai",
            "https://openrouter.ai/api/v1",
            ("OPENROUTER_API_KEY",),
            key_required=True,
        ),
        Provider(
            "deepseek",
            "openai",
            "https://api.deepseek.com/v1",
            ("DEEPSEEK_API_KEY",),
            key_required=True,
        ),
        Provider(
            "groq", "openai", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",), key_required=True
        ),
        Provider(
            "ollama",
            "openai",
            "http://127.0.0.1:11434/v1",
            local_server=True,
            any_model=True,
            default_context=32768,
            start_hint="start it with `ollama serve` and fetch the model with `ollama pull {model}`",
        ),
        Provider(
            "lmstudio",
            "openai",
            "http://127.0.0.1:1234/v1",
            local_server=True,
            any_model=True,
            default_context=8192,
            start_hint="start LM Studio's server with `lms server start` and load {model}",
        ),
        Provider(
            "vllm",
            "openai",
            "http://127.0.0.1:8000/v1",
            ("VLLM_API_KEY",),
            local_server=True,
            any_model=True,
            default_context=8192,
            start_hint="start it with `vllm serve {model}`",
        ),
        Provider(
            "llamacpp",
            "openai",
            "http://127.0.0.1:8080/v1",
            local_server=True,
            any_model=True,
            default_context=8192,
            start_hint="start it with `llama-server -m model.gguf --port 8080`",
        ),
        Provider(
            "openai-compat",
            "openai",
            "",
            ("OPENAI_COMPAT_API_KEY",),
            local_server=True,
            any_model=True,
            default_context=8192,
            start_hint="start the server that should answer at that URL",
        ),
    )
}


def is_loopback(url: str) -> bool:
    """True for URLs on this machine (connection refused there means 'not started')."""
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").lower()
    return host in {"localhost", "127.0.0.1", "::1", "0.0.0.0"} or host.startswith("127.")


def base_url_for(provider: Provider, environ: Mapping[str, str]) -> str:
    """The preset URL unless overridden: ``PATCHWRIGHT_<PROVIDER>_BASE_URL``, or for
    Ollama its own ``OLLAMA_HOST`` (``host:port`` or a URL)."""
    var = f"PATCHWRIGHT_{provider.name.upper().replace('-', '_')}_BASE_URL"
    if environ.get(var):
        return environ[var].rstrip("/")
    if provider.name == "ollama" and environ.get("OLLAMA_HOST"):
        host = environ["OLLAMA_HOST"].rstrip("/")
        if not host.startswith(("http://", "https://")):
            host = "http://" + host
        return host + "/v1"
    return provider.base_url
