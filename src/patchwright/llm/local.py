"""The embedded model: llama-cpp-python in process, with the GGUF's own chat template.

One ``Llama`` per model file is kept per process (a small LRU keyed by path and
``n_ctx``), so an agent loop that resends a growing conversation only prefills the new
tokens: llama-cpp-python reuses the KV cache for the longest common token prefix with the
previous call. ``n_ctx`` is sized from prompt + reply budget (at least 8192, grown in
steps; growing reloads the model); a prompt that cannot fit the model's trained context
is an error, never silently truncated.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchwright.llm import cpu_probe, speculate
from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import ModelConfigError, ModelError
from patchwright.llm.textproto import parse_tool_calls, to_text_messages
from patchwright.llm.types import (
    Message,
    OnToken,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    close_stream,
    feed,
    normalize_tools,
)
from patchwright.llm.weights import ResolvedWeights, resolve

MIN_CTX = 8192
CTX_STEP = 4096
DEFAULT_REPLY_BUDGET = 1024
# A prompt is evaluated in batches of N_BATCH tokens, and a token's numbers depend on the
# batch it was evaluated in: reusing a cached prefix of any length would evaluate the rest
# in differently aligned batches, which flips near-ties even at temperature 0 (measured: the
# same HumanEvalFix prompt answered with the fix in one run and an unchanged file in the next,
# after a different task had filled the cache). So only whole batches that an earlier call
# evaluated as its prompt are reused: every batch after them falls where a fresh process
# would put it, and the reply is the one a fresh process gives.
N_BATCH = 512
_PREFILLED = "_patchwright_prefilled"  # on a Llama: how many tokens its last prompt had
_CACHE_SIZE = 2


def physical_cores() -> int:
    """Physical cores available to this process (hyper-threads do not help llama.cpp)."""
    try:
        allowed = os.sched_getaffinity(0)
    except AttributeError:  # pragma: no cover - not Linux
        allowed = set(range(os.cpu_count() or 1))
    cores: set[tuple[str, str]] = set()
    for cpu in allowed:
        topo = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add(
                (
                    (topo / "physical_package_id").read_text().strip(),
                    (topo / "core_id").read_text().strip(),
                )
            )
        except OSError:
            return max(1, len(allowed))
    return max(1, len(cores))


def _import_llama_cpp() -> Any:
    # libgomp's spinning threads collapse generation 20-37x under any other CPU load.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelConfigError(
            "the embedded model needs llama-cpp-python: `uv sync --extra embedded` "
            "or `pip install llama-cpp-python==0.3.36`"
        ) from exc
    return llama_cpp


class _Vocab:
    """Tokenizer and chat template of a GGUF, loaded without the weights (fast)."""

    def __init__(self, path: Path) -> None:
        llama_cpp = _import_llama_cpp()
        from llama_cpp import _internals, llama_chat_format

        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        model = _internals.LlamaModel(path_model=str(path), params=params, verbose=False)
        self.model: Any = model
        meta: dict[str, str] = dict(model.metadata())
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise ModelConfigError(f"{path} has no chat template; use an instruct GGUF")
        arch = meta.get("general.architecture", "")
        self.n_ctx_train = int(meta.get(f"{arch}.context_length", 0) or 32768)
        eos_id = model.token_eos()
        bos_id = model.token_bos()
        self.formatter = llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )

    def tokenize(self, text: str, *, special: bool = True, add_bos: bool = False) -> list[int]:
        return list(self.model.tokenize(text.encode("utf-8"), add_bos=add_bos, special=special))

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The exact tokens create_chat_completion will feed (same template, same flags)."""
        wire: list[Any] = [dict(m) for m in messages]
        result = self.formatter(messages=wire)
        return self.tokenize(result.prompt, add_bos=not result.added_special)


_lock = threading.Lock()
_vocabs: dict[Path, _Vocab] = {}
_llamas: OrderedDict[tuple[Path, int], Any] = OrderedDict()
_path_locks: dict[Path, threading.Lock] = {}


def _path_lock(path: Path) -> threading.Lock:
    """One generation at a time per model file: instances share the Llama object."""
    with _lock:
        return _path_locks.setdefault(path, threading.Lock())


def _vocab(path: Path) -> _Vocab:
    with _lock:
        if path not in _vocabs:
            _vocabs[path] = _Vocab(path)
        return _vocabs[path]


def get_llama(path: Path, need: int, n_ctx_train: int) -> Any:
    """A cached Llama for ``path`` with at least ``need`` context; a larger need reloads
    (dropping the smaller instance for that file)."""
    with _lock:
        for (p, n_ctx), llm in _llamas.items():
            if p == path and n_ctx >= need:
                _llamas.move_to_end((p, n_ctx))
                return llm
        for key in [k for k in _llamas if k[0] == path]:
            _llamas.pop(key).close()
        n_ctx = min(n_ctx_train, max(MIN_CTX, -(-need // CTX_STEP) * CTX_STEP))
        llama_cpp = _import_llama_cpp()
        cpu_probe.ensure_runs(path)  # a build for another CPU is refused, not fatal
        threads = physical_cores()
        llm = llama_cpp.Llama(
            str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            n_batch=N_BATCH,
            n_ubatch=N_BATCH,
            chat_format="chat_template.default",
            draft_model=speculate.NgramDrafter(),
            verbose=False,
        )
        speculate.enable(llm)
        _llamas[(path, n_ctx)] = llm
        while len(_llamas) > _CACHE_SIZE:
            _llamas.popitem(last=False)[1].close()
        return llm


def clear_cache() -> None:
    """Close and drop every loaded model (tests, benchmarks, interpreter exit)."""
    with _lock:
        for llm in _llamas.values():
            llm.close()
        _llamas.clear()
        for vocab in _vocabs.values():
            vocab.model.close()
        _vocabs.clear()


# Close models before interpreter teardown; llama-cpp-python's own __del__ fails then.
atexit.register(clear_cache)


@dataclass
class CallStats:
    """What the last call cost in tokens and time (for benchmarks and logs)."""

    prompt_tokens: int = 0
    reused_tokens: int = 0
    completion_tokens: int = 0
    prefill_seconds: float = 0.0
    generate_seconds: float = 0.0
    n_ctx: int = 0
    drafted_tokens: int = 0  # guessed by prompt lookup
    accepted_tokens: int = 0  # of those, kept

    @property
    def prefilled_tokens(self) -> int:
        return self.prompt_tokens - self.reused_tokens


def _reusable(llm: Any, prompt: Sequence[int]) -> int:
    """How much of the cache a call may keep: the prefix it shares with the last prompt
    (never generated tokens, which were evaluated one at a time), in whole batches, and
    at least one token left to evaluate."""
    shared = min(
        _common_prefix(list(llm._input_ids), prompt), len(prompt) - 1, getattr(llm, _PREFILLED, 0)
    )
    return shared - shared % N_BATCH


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class LocalModel:
    """The embedded model behind the :class:`Model` protocol."""

    def __init__(
        self,
        name: str,
        *,
        info: ModelInfo | None = None,
        allow_hub: bool = True,
        prompt_lookup: bool = True,
    ) -> None:
        self.name = f"local:{name}"
        self.prompt_lookup = prompt_lookup  # speculative decoding (llm/speculate.py)
        self._resolving = threading.Lock()
        self.context_window = info.context_window if info else 32768
        self._weights_name = name
        self._allow_hub = allow_hub
        self.weights: ResolvedWeights | None = None
        self.last = CallStats()

    def path(self) -> Path:
        with self._resolving:
            if self.weights is None:
                self.weights = resolve(self._weights_name, allow_hub=self._allow_hub)
            return self.weights.path

    def warm(self) -> None:
        """Load the weights now (a run calls this in a thread while it runs the tests
        before the first prompt), so the first call does not wait for them."""
        path = self.path()
        get_llama(path, 1, _vocab(path).n_ctx_train)

    def count_tokens(self, text: str) -> int:
        return len(_vocab(self.path()).tokenize(text, special=False))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_token: OnToken | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        phase: str = "",
        seed: int | None = None,
    ) -> Reply:
        start = time.monotonic()
        specs = normalize_tools(tools)
        msgs = to_text_messages(messages, specs) if specs else list(messages)
        path = self.path()
        vocab = _vocab(path)
        prompt = vocab.prompt_tokens(msgs)
        budget = max_tokens or DEFAULT_REPLY_BUDGET
        self.context_window = vocab.n_ctx_train
        if len(prompt) + budget > vocab.n_ctx_train:
            raise ModelConfigError(
                f"{self.name}: the prompt is {len(prompt)} tokens and the reply budget "
                f"{budget}; together they exceed the model's {vocab.n_ctx_train}-token "
                "context. Shorten the prompt (fewer or smaller files) or lower max_tokens."
            )
        with _path_lock(path):
            llm = get_llama(path, len(prompt) + budget, vocab.n_ctx_train)
            reused = _reusable(llm, prompt)
            if reused:
                llm.n_tokens = reused  # llama-cpp-python matches the prefix up to here only
            else:
                llm.reset()
            setattr(llm, _PREFILLED, len(prompt))
            drafter = speculate.start_reply(llm, speculate=self.prompt_lookup)
            text, finish, first_at = self._generate(llm, msgs, budget, temperature, seed, on_token)
        end = time.monotonic()
        completion = len(vocab.tokenize(text, special=False)) if text else 0
        self.last = CallStats(
            prompt_tokens=len(prompt),
            reused_tokens=max(0, reused),
            completion_tokens=completion,
            prefill_seconds=(first_at or end) - start,
            generate_seconds=end - (first_at or end),
            n_ctx=llm.n_ctx(),
            drafted_tokens=drafter.proposed if drafter else 0,
            accepted_tokens=drafter.accepted if drafter else 0,
        )
        calls: list[ToolCall] = []
        if specs:
            text, calls = parse_tool_calls(text, [s["name"] for s in specs])
        return Reply(
            text=text,
            tool_calls=calls,
            usage=Usage(len(prompt), completion, max(0, reused)),
            cost=0.0,
            seconds=end - start,
            model=self.name,
            finish_reason=finish,
        )

    def _generate(
        self,
        llm: Any,
        msgs: Sequence[Message],
        budget: int,
        temperature: float | None,
        seed: int | None,
        on_token: OnToken | None,
    ) -> tuple[str, str | None, float | None]:
        parts: list[str] = []
        finish: str | None = None
        first_at: float | None = None
        try:
            stream = llm.create_chat_completion(
                messages=[dict(m) for m in msgs],
                max_tokens=budget,
                temperature=0.0 if temperature is None else temperature,
                seed=seed,
                stream=True,
            )
            for chunk in stream:
                if first_at is None:
                    first_at = time.monotonic()
                choice = chunk["choices"][0]
                piece = choice.get("delta", {}).get("content") or ""
                if piece:
                    parts.append(piece)
                    if not feed(on_token, piece):
                        finish = "stop"
                        close_stream(stream)
                        break
                finish = choice.get("finish_reason") or finish
        except (RuntimeError, ValueError) as exc:
            raise ModelError(f"{self.name}: llama.cpp failed: {exc}") from exc
        return "".join(parts), finish, first_at
