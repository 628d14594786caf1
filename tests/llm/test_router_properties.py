"""Property: under random 429/5xx/timeouts/cut streams from a real loopback server, the
cost cap is never exceeded by more than one call's estimate, and keys rotate and the
fallback answers exactly as configured (checked against a small reference model)."""

from __future__ import annotations

from collections import deque
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from llm_fakeserver import FakeServer

from patchwright.llm import CapExceeded, Caps, make_model

MAX_RETRIES = 2
FAULTS = st.sampled_from(["ok", "ok", "ok", "429", "500", "cut", "hang"])


def reference(faults: list[str], n_keys: int, n_calls: int) -> tuple[list[str], list[str | None]]:
    """Which key each request uses and who answers each call (None = the fallback)."""
    queue = deque(faults)
    cooled: set[int] = set()
    requests: list[str] = []
    answers: list[str | None] = []
    for _ in range(n_calls):
        answer: str | None = None
        done = False
        while not done:
            free = [k for k in range(n_keys) if k not in cooled]
            if not free:
                break
            key, failures = free[0], 0
            while True:
                behaviour = queue.popleft() if queue else "ok"
                requests.append(f"key-{key}")
                if behaviour == "ok":
                    answer, done = f"key-{key}", True
                    break
                if behaviour == "429":
                    cooled.add(key)
                    break
                failures += 1
                if failures > MAX_RETRIES:
                    done = True  # persistent failure: fall back
                    break
        answers.append(answer)
    return requests, answers


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    faults=st.lists(FAULTS, max_size=14),
    n_keys=st.integers(1, 3),
    n_calls=st.integers(1, 6),
    max_cost=st.floats(0.0, 0.12),
)
@example(faults=["429", "ok"], n_keys=2, n_calls=2, max_cost=0.1)
@example(faults=["429", "500", "500", "500"], n_keys=2, n_calls=3, max_cost=0.1)
@example(faults=["ok", "hang", "cut", "ok"], n_keys=1, n_calls=3, max_cost=0.06)
def test_caps_rotation_and_fallback_under_faults(
    _server: FakeServer,
    tmp_path_factory: object,
    faults: list[str],
    n_keys: int,
    n_calls: int,
    max_cost: float,
) -> None:
    fake = _server
    fake.reset()
    fake.state.retry_after = "1000"
    fake.state.hang_seconds = 0.3
    fake.plan(*faults)
    spec = f"openai-compat:{fake.url}#fake"
    script = Path(str(tmp_path_factory.mktemp("fb"))) / "fallback.jsonl"  # type: ignore[attr-defined]
    script.write_text('{"content": "fallback"}\n' * 10, encoding="utf-8")
    env = {"OPENAI_COMPAT_API_KEY": "key-0"}
    env.update({f"OPENAI_COMPAT_API_KEY_{i + 1}": f"key-{i}" for i in range(1, n_keys)})
    model = make_model(
        spec,
        fallback=[f"scripted:{script}"],
        caps=Caps(max_cost=max_cost),
        catalog={spec: {"input": 1000.0, "output": 2000.0, "context_window": 8192}},
        environ=env,
        timeout=0.15,
        max_retries=MAX_RETRIES,
        backoff_initial=0.001,
        backoff_max=0.002,
    )
    answers: list[str | None] = []
    for _ in range(n_calls):
        try:
            reply = model.complete([{"role": "user", "content": "say hello"}], max_tokens=8)
        except CapExceeded as exc:
            assert exc.cap == "cost"
            assert "raise max_cost" in str(exc)
            break
        answers.append(None if reply.model.startswith("scripted:") else fake.log[-1].key)

    # caps: never exceeded by more than one call's estimate (in fact not at all, since
    # every call's actual cost stays within its estimate)
    biggest = max((c.estimated_cost for c in model.calls), default=0.0)
    assert model.totals.cost <= max_cost + biggest + 1e-12
    assert all(c.cost <= c.estimated_cost + 1e-12 for c in model.calls)
    assert model.totals.cost <= max_cost + 1e-12

    # rotation and fallback follow the configuration exactly
    want_requests, want_answers = reference(faults, n_keys, n_calls)
    got_requests = [e.key for e in fake.log]
    assert got_requests == want_requests[: len(got_requests)]
    assert answers == want_answers[: len(answers)]
    if len(answers) == n_calls:
        assert got_requests == want_requests
