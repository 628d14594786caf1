"""patchwright.llm: the ``Model`` protocol and its backends.

Backends: the embedded model (llama.cpp, in process), the OpenAI protocol (OpenAI and
every compatible server: Ollama, LM Studio, vLLM, llama.cpp server, OpenRouter, Gemini,
DeepSeek, Groq), Anthropic, and scripted replies for tests. ``make_model(spec)`` returns
a :class:`Router` that adds key rotation, cooldowns, retries, fallback, hard caps and
token/cost accounting. Heavy SDKs are imported only when a backend is used.
"""

from __future__ import annotations

from patchwright.llm.catalog import Catalog, ModelInfo
from patchwright.llm.errors import CapExceeded, ModelConfigError, ModelError, ProviderError
from patchwright.llm.factory import DEFAULT_MODEL, make_model, parse_spec
from patchwright.llm.ledger import CallRecord, Totals
from patchwright.llm.router import Router
from patchwright.llm.scripted import ScriptedModel, ScriptExhausted, append_record
from patchwright.llm.secrets import redact, secret_env_names
from patchwright.llm.types import (
    Caps,
    Message,
    Model,
    OnToken,
    Reply,
    ReplyComplete,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "DEFAULT_MODEL",
    "CallRecord",
    "CapExceeded",
    "Caps",
    "Catalog",
    "Message",
    "Model",
    "ModelConfigError",
    "ModelError",
    "ModelInfo",
    "OnToken",
    "ProviderError",
    "Reply",
    "ReplyComplete",
    "Router",
    "ScriptExhausted",
    "ScriptedModel",
    "ToolCall",
    "ToolSpec",
    "Totals",
    "Usage",
    "append_record",
    "make_model",
    "parse_spec",
    "redact",
    "secret_env_names",
]
