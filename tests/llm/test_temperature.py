"""The temperature policy: every request names its temperature, so a backend's own default
(0.2 embedded, 0.8 llama.cpp's server and Ollama, 1.0 OpenAI) never decides an outcome.

First attempts are greedy (0) unless ``[model] temperature`` says otherwise; a caller that
samples on purpose (a retry, an extra candidate) names its own; a model that takes no
temperature (OpenAI's reasoning models) is sent none. Checked on the wire, against a
loopback server, for each protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llm_fakeserver import FakeServer

from patchwright.agent.session import build_model
from patchwright.config import load_settings
from patchwright.llm import make_model
from patchwright.llm.router import SEED, Router
from patchwright.llm.types import Message

HELLO: list[Message] = [{"role": "user", "content": "say hello"}]
FAST: dict[str, Any] = {"timeout": 2.0, "backoff_initial": 0.01, "backoff_max": 0.02}


def compat(fake: FakeServer, **kw: Any) -> Router:
    return make_model(f"openai-compat:{fake.url}#fake", environ={}, **FAST, **kw)


def ollama(fake: FakeServer, **kw: Any) -> Router:
    return make_model(
        "ollama:qwen2.5-coder", base_urls={"ollama": fake.url}, environ={}, **FAST, **kw
    )


def claude(fake: FakeServer, **kw: Any) -> Router:
    """An Anthropic-protocol endpoint that takes a temperature (a proxy, a compatible
    server): Anthropic's own models take none in the SDK's Messages API."""
    spec = "anthropic:claude-haiku-4-5"
    kw.setdefault("catalog", {spec: {"temperature": True}})
    return make_model(
        spec,
        base_urls={"anthropic": fake.root},
        environ={"ANTHROPIC_API_KEY": "sk-ant-test-key-000000000000"},
        **FAST,
        **kw,
    )


def sent(fake: FakeServer) -> list[float | None]:
    """The temperature of each logged request, wherever its protocol puts it."""
    out = []
    for entry in fake.log:
        body = entry.body
        out.append(body.get("temperature", body.get("options", {}).get("temperature")))
    return out


@pytest.mark.parametrize("build", [compat, ollama, claude], ids=["openai", "ollama", "anthropic"])
def test_a_first_request_is_greedy_on_every_protocol(fake: FakeServer, build: Any) -> None:
    model = build(fake)
    model.complete(HELLO)
    model.complete(HELLO, temperature=0.7)  # a caller sampling on purpose
    assert sent(fake) == [0, 0.7]
    assert [c.temperature for c in model.calls] == [0, 0.7]


@pytest.mark.parametrize("build", [compat, ollama, claude], ids=["openai", "ollama", "anthropic"])
def test_the_configured_temperature_replaces_greedy(fake: FakeServer, build: Any) -> None:
    build(fake, temperature=0.3).complete(HELLO)
    assert sent(fake) == [0.3]


def test_a_model_that_takes_no_temperature_is_sent_none(fake: FakeServer) -> None:
    model = compat(fake, catalog={f"openai-compat:{fake.url}#fake": {"temperature": False}})
    model.complete(HELLO, temperature=0.7)
    assert "temperature" not in fake.log[0].body
    assert model.calls[0].temperature is None


def test_anthropics_own_models_are_sent_no_temperature(fake: FakeServer) -> None:
    model = claude(fake, catalog={})
    model.complete(HELLO, temperature=0.7)  # a retry: before, the SDK raised TypeError
    assert sent(fake) == [None] and model.calls[0].temperature is None


def test_model_temperature_in_the_users_config_reaches_the_wire(
    fake: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg" / "patchwright" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[model]\ntemperature = 0.25\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PATCHWRIGHT_TEMPERATURE", raising=False)
    settings = load_settings()
    assert settings.model.temperature == 0.25
    build_model(settings, spec=f"openai-compat:{fake.url}#fake").complete(HELLO)
    assert sent(fake) == [0.25]
    monkeypatch.setenv("PATCHWRIGHT_TEMPERATURE", "0")
    assert load_settings().model.temperature == 0


def test_a_sampling_server_answers_the_same_at_temperature_zero(fake: FakeServer) -> None:
    """The fake samples like a real server; greedy requests make its answers repeatable."""
    fake.state.variants = [f"answer {i}\n" for i in range(8)]
    model = compat(fake)
    assert {model.complete(HELLO).text for _ in range(6)} == {"answer 0\n"}


def seeds(fake: FakeServer) -> list[int | None]:
    """The seed of each logged request, wherever its protocol puts it."""
    return [e.body.get("seed", e.body.get("options", {}).get("seed")) for e in fake.log]


@pytest.mark.parametrize("build", [compat, ollama], ids=["openai", "ollama"])
def test_a_sampled_request_carries_a_seed_from_its_place_in_the_task(
    fake: FakeServer, build: Any
) -> None:
    model = build(fake)
    model.complete(HELLO)  # greedy: nothing to draw, no seed
    model.complete(HELLO, temperature=0.7)
    model.complete(HELLO, temperature=0.7)  # the same prompt sampled again: another draw
    assert seeds(fake) == [None, SEED + 1, SEED + 2]
    assert [c.seed for c in model.calls] == [None, SEED + 1, SEED + 2]


def test_the_same_task_draws_the_same_samples_from_a_sampling_server(fake: FakeServer) -> None:
    """Two runs of one task (each starting the ledger anew) get the same sampled replies,
    and two samples within a run differ as a sampler's would."""
    fake.state.variants = [f"answer {i}\n" for i in range(64)]
    runs = []
    for _run in range(2):
        model = compat(fake)
        runs.append([model.complete(HELLO, temperature=0.7).text for _ in range(4)])
    assert runs[0] == runs[1]
    assert len(set(runs[0])) > 1
