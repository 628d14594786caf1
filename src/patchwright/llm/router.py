"""The router: keys, cooldowns, retries, fallback, caps and accounting around backends.

For each call it walks the candidates (the chosen model, then the fallback chain). Within
a candidate it uses the current key; a 429 cools that key (``Retry-After`` honoured, else
``cooldown_seconds``) and the next key is used; a refused key (401/403) is dropped. When
every key of a candidate is cooling, or the candidate keeps failing after its retries,
the next candidate is tried. Timeouts, 5xx and connection errors are retried with
exponential backoff and jitter (tenacity); other 4xx are not retried.

Caps are checked **before** every attempt against an estimate (prompt tokens counted,
reply budget = ``max_tokens``), so no cap is exceeded by more than one call's estimate.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from patchwright.events import (
    Event,
    ModelFallback,
    ModelKeyCooled,
    ModelKeyRefused,
    ModelReply,
    ModelRequest,
    ModelRetry,
    ModelWait,
)
from patchwright.llm.calibration import TokenCalibration
from patchwright.llm.catalog import ModelInfo
from patchwright.llm.errors import CapExceeded, ModelConfigError, ProviderError, final_error
from patchwright.llm.ledger import CallRecord, Totals
from patchwright.llm.scripted import append_record
from patchwright.llm.secrets import ApiKey
from patchwright.llm.types import (
    Caps,
    Message,
    Model,
    OnToken,
    Reply,
    ToolSpec,
    messages_token_estimate,
    normalize_tools,
)

EventHook = Callable[[Event], None]
DEFAULT_REPLY_BUDGET = 4096
SEED = 1234  # the first sampled call's seed in a task; each later call adds its place


class Candidate:
    """One model of the chain with its keys; backends are built lazily, one per key."""

    def __init__(
        self,
        info: ModelInfo,
        keys: Sequence[ApiKey | None],
        build: Callable[[ApiKey | None], Model],
    ) -> None:
        self.info = info
        self.keys: list[ApiKey | None] = list(keys) or [None]
        self._build = build
        self._backends: dict[int, Model] = {}
        self.cooling: dict[int, float] = {}  # key index -> monotonic time it is usable again
        self.refused: set[int] = set()

    @property
    def spec(self) -> str:
        return self.info.spec

    def label(self, index: int) -> str:
        key = self.keys[index]
        return key.label if key is not None else "no key"

    def available(self, now: float) -> int | None:
        for i in range(len(self.keys)):
            if i not in self.refused and self.cooling.get(i, 0.0) <= now:
                return i
        return None

    def next_ready_at(self) -> float | None:
        times = [t for i, t in self.cooling.items() if i not in self.refused]
        usable = len(self.refused) < len(self.keys)
        return min(times) if times and usable else None

    def backend(self, index: int) -> Model:
        if index not in self._backends:
            self._backends[index] = self._build(self.keys[index])
        return self._backends[index]


class Router:
    """A :class:`Model` over a chain of candidates, with caps and accounting."""

    def __init__(
        self,
        candidates: Sequence[Candidate],
        *,
        caps: Caps | None = None,
        record: Path | None = None,
        cooldown_seconds: float = 1200.0,
        max_retries: int = 3,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        max_wait: float = 60.0,
        temperature: float = 0.0,
        on_event: EventHook | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not candidates:
            raise ModelConfigError("no model configured")
        self.candidates = list(candidates)
        self.caps = caps or Caps()
        self.record = record
        self.cooldown_seconds = cooldown_seconds
        self.max_retries = max_retries
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.max_wait = max_wait
        self.temperature = temperature
        self.on_event = on_event
        self._clock = clock
        self._sleep = sleep
        self.totals = Totals()
        self.calls: list[CallRecord] = []
        self.name = self.candidates[0].spec
        self.context_window = self.candidates[0].info.context_window
        self.calibration = TokenCalibration()

    @property
    def info(self) -> ModelInfo:
        """The catalog entry of the configured model (the first of the chain): what it can
        do, its size and its prices, as the strategies and budgets read them."""
        return self.candidates[0].info

    def warm_up(self) -> threading.Thread | None:
        """Start loading the first model in the background when it is one that loads
        (the embedded model); a failure there is left for the first call to report."""
        first = self.candidates[0]
        warm = getattr(first.backend(0), "warm", None) if first.info.embedded else None
        if not callable(warm):
            return None

        def load() -> None:
            with contextlib.suppress(Exception):
                warm()

        thread = threading.Thread(target=load, name="patchwright-warm-up", daemon=True)
        thread.start()
        return thread

    # -- Model protocol -------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """The first backend's estimate, scaled by the shortfall its server's counts showed."""
        first = self.candidates[0]
        backend = first.backend(first.available(self._clock()) or 0)
        return self.calibration.apply(backend.count_tokens(text))

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
        """The first answer of the chain; ``model.request`` before it and ``model.reply``
        after it (the one place these are emitted, whoever asks). A sampled call without a
        ``seed`` gets the task's next (:meth:`seed_for`)."""
        self._emit(ModelRequest(phase=phase, messages=len(messages)))
        started = self._clock()
        failures: list[ProviderError] = []
        for _round in range(3):
            for cand in self.candidates:
                reply = self._try_candidate(
                    cand, messages, tools, on_token, max_tokens, (temperature, seed), failures
                )
                if reply is not None:
                    self._emit(ModelReply(
                        phase=phase, model=reply.model or cand.spec,
                        prompt_tokens=reply.usage.prompt_tokens,
                        completion_tokens=reply.usage.completion_tokens, cost=reply.cost,
                        seconds=round(self._clock() - started, 3),
                        tool_calls=[c.name for c in reply.tool_calls],
                        estimated=reply.usage.estimated,
                    ))  # fmt: skip
                    return reply
            if not self._wait_for_cooldown():
                break
        raise final_error(failures)

    # -- internals --------------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _wait_for_cooldown(self) -> bool:
        """Sleep until the first cooling key is usable again, if that is soon enough."""
        ready = [t for c in self.candidates if (t := c.next_ready_at()) is not None]
        if not ready:
            return False
        delay = min(ready) - self._clock()
        if delay > self.max_wait:
            return False
        if delay > 0:
            self._emit(ModelWait(seconds=round(delay, 3)))
            self._sleep(delay)
        return True

    def _try_candidate(
        self,
        cand: Candidate,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None,
        on_token: OnToken | None,
        max_tokens: int | None,
        sampling: tuple[float | None, int | None],
        failures: list[ProviderError],
    ) -> Reply | None:
        while (index := cand.available(self._clock())) is not None:
            label = cand.label(index)
            try:
                return self._call(cand, index, messages, tools, on_token, max_tokens, sampling)
            except ProviderError as exc:
                failures.append(exc)
                if exc.kind == "rate_limit":
                    wait = exc.retry_after if exc.retry_after is not None else self.cooldown_seconds
                    cand.cooling[index] = self._clock() + wait
                    self._emit(ModelKeyCooled(model=cand.spec, key=label, seconds=wait))
                    continue
                if exc.kind == "auth":
                    cand.refused.add(index)
                    self._emit(ModelKeyRefused(model=cand.spec, key=label))
                    continue
                if exc.kind == "bad_request":
                    raise
                if cand is not self.candidates[-1]:
                    self._emit(ModelFallback(model=cand.spec, reason=exc.kind))
                return None
        if cand.keys and len(cand.refused) < len(cand.keys):
            failures.append(
                ProviderError(f"{cand.spec}: every key is cooling (429)", kind="rate_limit")
            )
        if cand is not self.candidates[-1]:
            reason = "rate_limit" if len(cand.refused) < len(cand.keys) else "auth"
            self._emit(ModelFallback(model=cand.spec, reason=reason))
        return None

    def _estimate(
        self,
        backend: Model,
        info: ModelInfo,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None,
        budget: int,
    ) -> tuple[int, float]:
        prompt = messages_token_estimate(messages, backend.count_tokens)
        for tool in normalize_tools(tools):
            prompt += backend.count_tokens(str(tool)) + 8
        return prompt + budget, info.cost(prompt, budget)

    def check_caps(self, tokens: int, cost: float) -> None:
        """Raise :class:`CapExceeded` if a call of this estimate could break a cap."""
        caps, t = self.caps, self.totals
        if caps.max_calls is not None and t.calls + 1 > caps.max_calls:
            raise CapExceeded(
                f"call cap reached: {t.calls} of {caps.max_calls} model calls made; "
                "raise max_calls to continue",
                cap="calls",
                limit=caps.max_calls,
                spent=t.calls,
                estimate=1,
            )
        if caps.max_tokens is not None and t.tokens + tokens > caps.max_tokens:
            raise CapExceeded(
                f"token cap: {t.tokens} tokens used, the next call may use up to {tokens}, "
                f"the cap is {caps.max_tokens}; raise max_tokens or shorten the task",
                cap="tokens",
                limit=caps.max_tokens,
                spent=t.tokens,
                estimate=tokens,
            )
        if caps.max_cost is not None and t.cost + cost > caps.max_cost:
            raise CapExceeded(
                f"cost cap: ${t.cost:.4f} spent, the next call may cost up to ${cost:.4f}, "
                f"the cap is ${caps.max_cost:.4f}; raise max_cost to continue",
                cap="cost",
                limit=caps.max_cost,
                spent=t.cost,
                estimate=cost,
            )

    def _call(
        self,
        cand: Candidate,
        index: int,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None,
        on_token: OnToken | None,
        max_tokens: int | None,
        sampling: tuple[float | None, int | None],
    ) -> Reply:
        backend = cand.backend(index)
        sent = self.sampling(cand.info, sampling[0])
        seed = self.seed_for(sent, sampling[1])
        budget = max_tokens or min(DEFAULT_REPLY_BUDGET, max(256, cand.info.context_window // 4))
        est_tokens, est_cost = self._estimate(backend, cand.info, messages, tools, budget)
        retrying = Retrying(
            retry=retry_if_exception(lambda e: isinstance(e, ProviderError) and e.retryable),
            wait=wait_random_exponential(multiplier=self.backoff_initial, max=self.backoff_max),
            stop=stop_after_attempt(self.max_retries + 1),
            sleep=self._sleep,
            before_sleep=lambda rs: self._emit(
                ModelRetry(
                    model=cand.spec,
                    attempt=rs.attempt_number,
                    error=str(rs.outcome.exception() if rs.outcome else ""),
                )
            ),
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                self.check_caps(est_tokens, est_cost)
                self.totals.attempts += 1
                reply = backend.complete(
                    messages,
                    tools=tools,
                    on_token=on_token,
                    max_tokens=budget,
                    temperature=sent,
                    seed=seed,
                )
        self.calibration.learn(est_tokens - budget, reply.usage.prompt_tokens)
        return self._account(cand, index, reply, est_tokens, est_cost, (sent, seed))

    def sampling(self, info: ModelInfo, temperature: float | None) -> float | None:
        """The temperature a call sends: the caller's, else the router's default (greedy
        first attempts: 0 unless ``[model] temperature`` says otherwise) — always explicit,
        so a backend's own default never decides; None only for a model that takes none."""
        if not info.temperature:
            return None
        return self.temperature if temperature is None else temperature

    def seed_for(self, temperature: float | None, seed: int | None = None) -> int | None:
        """The seed a call sends: none for a greedy call (nothing to draw); for a sampled one
        the caller's, else ``SEED`` plus the calls the task made before it — so the same
        task through the same model draws the same replies, and two samples of one
        prompt (``--candidates``) differ."""
        if not temperature:
            return None
        return seed if seed is not None else SEED + len(self.calls)

    def _account(
        self,
        cand: Candidate,
        index: int,
        reply: Reply,
        est_tokens: int,
        est_cost: float,
        sampling: tuple[float | None, int | None],
    ) -> Reply:
        u = reply.usage
        cost = reply.cost or cand.info.cost(u.prompt_tokens, u.completion_tokens, u.cached_tokens)
        reply = replace(reply, cost=cost, model=reply.model or cand.spec)
        t = self.totals
        t.calls += 1
        t.usage = t.usage + u
        t.cost += cost
        t.seconds += reply.seconds
        self.calls.append(
            CallRecord(
                cand.spec, cand.label(index), u, cost, reply.seconds, est_cost, est_tokens,
                *sampling,
            )
        )  # fmt: skip
        if self.record is not None:
            append_record(self.record, reply)
        return reply
