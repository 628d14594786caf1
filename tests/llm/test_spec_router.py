"""Specification of the router's decisions, on a clock it does not own.

Around any backend the router: emits ``model.request``/``model.reply`` for every call,
accounts usage and cost (keys by label only), enforces the hard caps *before* a request
is sent, cools a key on 429 for ``Retry-After`` seconds, drops a refused key for good,
retries transient failures a bounded number of times, falls back along the chain, waits
for a cooldown only when it is short, and ends with one error that says what happened.

The backends here are tiny in-file models that answer from a plan (a reply or a
:class:`ProviderError` per request); time is a counter advanced by the router's own
``sleep``, so no test waits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

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
from patchwright.llm import (
    CapExceeded,
    Caps,
    ModelConfigError,
    ModelInfo,
    ProviderError,
    Reply,
    Router,
    ScriptedModel,
    ToolCall,
    Usage,
)
from patchwright.llm.router import Candidate
from patchwright.llm.secrets import ApiKey
from patchwright.llm.types import (
    Message,
    OnToken,
    ToolSpec,
    messages_token_estimate,
    rough_token_count,
)

HELLO: list[Message] = [{"role": "user", "content": "hello"}]
Outcome = Reply | ProviderError


class Planned:
    """A backend for one key: answers each request with the next planned outcome, and
    logs what it was asked (shared log across keys, so order is visible)."""

    def __init__(self, label: str, plan: list[Outcome], log: list[tuple[str, dict[str, Any]]]):
        self.name = label
        self.context_window = 8192
        self._plan = plan
        self._log = log

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

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
        self._log.append((self.name, {"max_tokens": max_tokens, "temperature": temperature}))
        outcome = self._plan.pop(0) if self._plan else Reply(text=f"from {self.name}")
        if isinstance(outcome, ProviderError):
            raise outcome
        return outcome


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def candidate(
    spec: str,
    plans: Mapping[str, list[Outcome]],
    log: list[tuple[str, dict[str, Any]]],
    **info: Any,
) -> Candidate:
    keys = [ApiKey(f"secret-value-{label}", label) for label in plans]
    return Candidate(
        ModelInfo(spec=spec, **info),
        keys,
        lambda key: Planned(key.label if key else "none", plans[key.label if key else ""], log),
    )


def router(*cands: Candidate, clock: Clock | None = None, **kw: Any) -> tuple[Router, list[Event]]:
    events: list[Event] = []
    clock = clock or Clock()
    kw.setdefault("max_retries", 2)
    model = Router(cands, on_event=events.append, clock=clock, sleep=clock.sleep, **kw)
    return model, events


def err(kind: str, retry_after: float | None = None) -> ProviderError:
    return ProviderError(f"planned {kind}", kind=kind, retry_after=retry_after)  # type: ignore[arg-type]


# -- events and accounting --------------------------------------------------------------


def test_a_call_is_announced_before_and_reported_after_with_its_phase() -> None:
    scripted = ScriptedModel(
        [{"content": "", "tool_calls": [{"id": "1", "name": "read_file", "arguments": {}}]}],
        name="scripted:x",
    )
    cand = Candidate(ModelInfo(spec="scripted:x"), [None], lambda _key: scripted)
    model, events = router(cand)
    reply = model.complete(HELLO + HELLO, phase="planner")
    assert [type(e) for e in events] == [ModelRequest, ModelReply]
    request, done = events
    assert isinstance(request, ModelRequest) and isinstance(done, ModelReply)
    assert (request.phase, request.messages) == ("planner", 2)
    assert (done.phase, done.model, done.tool_calls) == ("planner", "scripted:x", ["read_file"])
    assert done.prompt_tokens == reply.usage.prompt_tokens > 0


def test_a_reply_without_a_cost_is_priced_from_the_catalog_and_named() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    answer = Reply(text="ok", usage=Usage(prompt_tokens=1_000, completion_tokens=500))
    cand = candidate("p:m", {"K1": [answer]}, log, input=2.0, output=10.0)
    model, _ = router(cand)
    reply = model.complete(HELLO)
    assert reply.cost == pytest.approx((1_000 * 2.0 + 500 * 10.0) / 1e6)
    assert reply.model == "p:m"
    assert model.totals.cost == pytest.approx(reply.cost)


def test_a_cost_the_backend_reports_is_kept_as_it_is() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    answer = Reply(text="ok", usage=Usage(10, 10), cost=0.5, model="p:m-2025")
    model, _ = router(candidate("p:m", {"K1": [answer]}, log, input=2.0, output=10.0))
    reply = model.complete(HELLO)
    assert (reply.cost, reply.model) == (0.5, "p:m-2025")


def test_totals_sum_every_call_and_records_name_keys_by_label_only() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    plan: list[Outcome] = [
        Reply(text="a", usage=Usage(100, 10, cached_tokens=40), seconds=1.25),
        Reply(text="b", usage=Usage(200, 20), seconds=0.5),
    ]
    model, _ = router(candidate("p:m", {"OPENAI_API_KEY_2": plan}, log))
    model.complete(HELLO)
    model.complete(HELLO)
    totals = model.totals
    assert (totals.calls, totals.attempts, totals.tokens) == (2, 2, 330)
    assert totals.usage == Usage(300, 30, 40)
    assert totals.to_dict()["seconds"] == 1.75
    assert [c.key for c in model.calls] == ["OPENAI_API_KEY_2"] * 2
    assert all("secret-value" not in repr(c) for c in model.calls)


def test_the_reply_budget_defaults_to_a_quarter_of_the_window_within_bounds() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    for window in (512, 8192, 131072):
        model, _ = router(candidate("p:m", {"K": []}, log, context_window=window))
        model.complete(HELLO)
    model.complete(HELLO, max_tokens=77)
    assert [entry["max_tokens"] for _, entry in log] == [256, 2048, 4096, 77]


def test_the_router_speaks_for_its_first_model() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    first = candidate("p:first", {"A": []}, log, context_window=16000, small=True)
    model, _ = router(first, candidate("p:second", {"B": []}, log))
    assert (model.name, model.context_window, model.info.small) == ("p:first", 16000, True)
    with pytest.raises(ModelConfigError, match="no model configured"):
        Router([])


# -- caps -------------------------------------------------------------------------------


def test_the_call_cap_refuses_the_next_call_before_it_is_sent() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    model, events = router(candidate("p:m", {"K": []}, log), caps=Caps(max_calls=2))
    model.complete(HELLO)
    model.complete(HELLO)
    with pytest.raises(CapExceeded, match="raise max_calls") as info:
        model.complete(HELLO)
    assert (info.value.cap, info.value.limit, info.value.spent) == ("calls", 2, 2)
    assert len(log) == 2, "the refused call never reached the backend"
    assert model.totals.attempts == 2
    assert not isinstance(events[-1], ModelReply)


def test_the_token_cap_counts_the_whole_reply_budget_of_the_next_call() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    model, _ = router(candidate("p:m", {"K": []}, log), caps=Caps(max_tokens=300))
    model.complete(HELLO, max_tokens=100)  # prompt + 100 fits in 300
    with pytest.raises(CapExceeded) as info:
        model.complete(HELLO, max_tokens=400)  # a 400-token reply could break the cap
    assert info.value.cap == "tokens"
    assert info.value.estimate >= 400
    assert len(log) == 1


def test_the_cost_cap_prices_the_worst_case_and_ignores_free_models() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    priced, _ = router(candidate("p:m", {"K": []}, log, output=1000.0), caps=Caps(max_cost=0.05))
    with pytest.raises(CapExceeded, match="raise max_cost") as info:
        priced.complete(HELLO, max_tokens=100)  # up to 100 * $1000/M = $0.10
    assert info.value.cap == "cost"
    assert info.value.estimate == pytest.approx(0.1, rel=0.01)
    assert log == []
    free, _ = router(candidate("p:free", {"K": []}, log), caps=Caps(max_cost=0.0))
    assert free.complete(HELLO).text == "from K"


# -- keys, retries, fallback --------------------------------------------------------------


def test_a_429_cools_that_key_for_retry_after_and_the_next_key_answers() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    clock = Clock()
    cand = candidate("p:m", {"K1": [err("rate_limit", retry_after=30)], "K2": []}, log)
    model, events = router(cand, clock=clock, cooldown_seconds=999)
    assert model.complete(HELLO).text == "from K2"
    cooled = [e for e in events if isinstance(e, ModelKeyCooled)]
    assert cooled == [ModelKeyCooled(model="p:m", key="K1", seconds=30)]
    model.complete(HELLO)
    assert log[-1][0] == "K2", "K1 is still cooling"
    clock.now += 31
    model.complete(HELLO)
    assert log[-1][0] == "K1", "the first key is preferred again once it has rested"


def test_a_429_without_retry_after_rests_the_configured_cooldown() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    cand = candidate("p:m", {"K1": [err("rate_limit")], "K2": []}, log)
    model, events = router(cand, cooldown_seconds=45)
    model.complete(HELLO)
    assert ModelKeyCooled(model="p:m", key="K1", seconds=45) in events


def test_a_refused_key_is_never_used_again() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    cand = candidate("p:m", {"K1": [err("auth")], "K2": []}, log)
    model, events = router(cand)
    for _ in range(3):
        model.complete(HELLO)
    assert [name for name, _ in log] == ["K1", "K2", "K2", "K2"]
    assert [e for e in events if isinstance(e, ModelKeyRefused)] == [
        ModelKeyRefused(model="p:m", key="K1")
    ]


def test_a_bad_request_is_raised_at_once_without_retry_or_fallback() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    first = candidate("p:m", {"K1": [err("bad_request")]}, log)
    second = candidate("p:backup", {"B": []}, log)
    model, events = router(first, second)
    with pytest.raises(ProviderError, match="planned bad_request"):
        model.complete(HELLO)
    assert [name for name, _ in log] == ["K1"]
    assert not any(isinstance(e, ModelRetry | ModelFallback) for e in events)


def test_a_transient_failure_is_retried_and_then_succeeds() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    clock = Clock()
    cand = candidate("p:m", {"K1": [err("server"), err("timeout")]}, log)
    model, events = router(cand, clock=clock, max_retries=3)
    assert model.complete(HELLO).text == "from K1"
    retries = [e for e in events if isinstance(e, ModelRetry)]
    assert [(r.attempt, r.error) for r in retries] == [
        (1, "planned server"),
        (2, "planned timeout"),
    ]
    assert len(clock.slept) == 2, "each retry backs off first"
    assert (model.totals.attempts, model.totals.calls) == (3, 1)


def test_persistent_transient_failures_fall_back_after_the_retries() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    first = candidate("p:m", {"K1": [err("connection")] * 10}, log)
    second = candidate("p:backup", {"B": []}, log)
    model, events = router(first, second, max_retries=2)
    reply = model.complete(HELLO)
    assert reply.text == "from B" and reply.model == "p:backup"
    assert [name for name, _ in log] == ["K1", "K1", "K1", "B"]
    assert ModelFallback(model="p:m", reason="connection") in events
    done = events[-1]
    assert isinstance(done, ModelReply) and done.model == "p:backup"


def test_every_key_cooling_briefly_makes_the_router_wait_and_try_again() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    clock = Clock()
    cand = candidate("p:m", {"K1": [err("rate_limit", retry_after=5)]}, log)
    model, events = router(cand, clock=clock, max_wait=60)
    assert model.complete(HELLO).text == "from K1"
    assert ModelWait(seconds=5) in events
    assert clock.slept == [5]


def test_a_cooldown_longer_than_the_wait_limit_ends_in_exhausted_with_advice() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    clock = Clock()
    cand = candidate(
        "p:m", {"K1": [err("rate_limit", retry_after=600)], "K2": [err("rate_limit", 900)]}, log
    )
    model, events = router(cand, clock=clock, max_wait=60)
    with pytest.raises(ProviderError) as info:
        model.complete(HELLO)
    assert info.value.kind == "exhausted"
    assert "add keys" in str(info.value)
    assert clock.slept == [], "it does not sleep ten minutes on the caller's behalf"
    assert not any(isinstance(e, ModelWait) for e in events)


def test_the_only_failure_is_raised_as_it_was() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    down = err("unreachable")
    model, _ = router(candidate("p:m", {"K1": [down]}, log))
    with pytest.raises(ProviderError) as info:
        model.complete(HELLO)
    assert info.value is down


def test_the_same_failure_everywhere_keeps_its_kind() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    first = candidate("p:a", {"A": [err("unreachable")]}, log)
    second = candidate("p:b", {"B": [err("unreachable")]}, log)
    model, events = router(first, second)
    with pytest.raises(ProviderError, match="no model could answer") as info:
        model.complete(HELLO)
    assert info.value.kind == "unreachable"
    fallbacks = [e for e in events if isinstance(e, ModelFallback)]
    assert fallbacks == [ModelFallback(model="p:a", reason="unreachable")], (
        "the last of the chain has nothing to fall back to"
    )


def test_every_key_refused_falls_back_with_reason_auth() -> None:
    log: list[tuple[str, dict[str, Any]]] = []
    first = candidate("p:a", {"A1": [err("auth")], "A2": [err("auth")]}, log)
    second = candidate("p:b", {"B": [Reply(text="b", tool_calls=[ToolCall("c", "t")])]}, log)
    model, events = router(first, second)
    assert model.complete(HELLO).text == "b"
    assert ModelFallback(model="p:a", reason="auth") in events


def test_token_counts_grow_by_the_shortfall_the_servers_count_showed() -> None:
    """A tokenizer-free estimate of a card list falls short; once a reply's usage says how
    many tokens the prompt really was, later counts are scaled up so fitting keeps them
    inside the window (never scaled down)."""
    log: list[tuple[str, dict[str, Any]]] = []
    cards: list[Message] = [{"role": "user", "content": '"2", "J", "Q", ' * 100}]
    estimate = messages_token_estimate(cards, rough_token_count)
    served = Reply(text="ok", usage=Usage(prompt_tokens=estimate * 2, completion_tokens=1))
    model, _ = router(candidate("p:m", {"K1": [served, Reply(text="ok", usage=Usage(1, 1))]}, log))
    text = cards[0]["content"]
    before = model.count_tokens(text)
    model.complete(cards)
    assert model.count_tokens(text) == 2 * before
    model.complete(cards)  # counted as fewer than estimated: the scale stays
    assert model.count_tokens(text) == 2 * before
