"""``run`` builds its model through the Session: the configured caps, fallback and cooldown
apply, against a real loopback OpenAI-protocol server that bills every call."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[2] / "llm"))  # the shared fake server

from llm_fakeserver import FakeServer

from patchwright import trust
from patchwright.cli import app

TASK = "tests/test_pricing.py fails: apply_discount returns the discount. Fix it."


@pytest.fixture(autouse=True)
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's config home (where trust is recorded), empty."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with FakeServer() as server:
        yield server


def configure(repo: Path, text: str) -> None:
    """The repository's config, trusted as ``patchwright trust`` would (caps, prices and
    fallbacks are the user's to set: an untrusted repository may not)."""
    (repo / ".patchwright").mkdir(exist_ok=True)
    (repo / ".patchwright" / "config.toml").write_text(text)
    trust.record(repo)


def run(repo: Path, model: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(repo), "--task", TASK, "--model", model, "--yes", "--json",
         "--max-iter", "6"],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


def events(repo: Path) -> list[dict[str, Any]]:
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_max_cost_stops_the_run_before_the_cap_is_passed(
    shop_repo: Path, fake: FakeServer, shop: Any
) -> None:
    spec = f"openai-compat:{fake.url}#fake"
    # $1 per thousand tokens: every call is estimated (prompt + 1,024-token reply budget)
    # at about a dollar and billed at what the server reports.
    configure(
        shop_repo,
        f'[model]\nmax_cost = 2.5\n[model.catalog."{spec}"]\n'
        "context_window = 32000\ninput = 1000.0\noutput = 1000.0\n",
    )
    before = shop.fingerprint(shop_repo)
    code, out = run(shop_repo, spec)
    assert (code, out["outcome"]) == (1, "failed"), out
    assert out["reason"].startswith("cost cap reached")
    assert 0 < out["cost"] <= 2.5
    assert out["calls"] == len(fake.log) < 7  # stopped well before the iterations ran out
    end = next(e for e in events(shop_repo) if e["kind"] == "run.end")
    assert "cost cap" in end["reason"]
    assert shop.fingerprint(shop_repo) == before


def test_fallback_and_cooldown_are_in_the_run_record(shop_repo: Path, fake: FakeServer) -> None:
    spec, backup = f"openai-compat:{fake.url}#fake", f"openai-compat:{fake.url}#backup"
    configure(shop_repo, f'[model]\nfallback = ["{backup}"]\nmax_calls = 2\n')
    fake.plan("429")  # the first request is rate-limited; the backup answers
    code, out = run(shop_repo, spec)
    assert (code, out["outcome"]) == (1, "failed"), out
    assert "call cap reached" in out["reason"]
    kinds = [e["kind"] for e in events(shop_repo)]
    assert "model.key_cooled" in kinds
    fallback = next(e for e in events(shop_repo) if e["kind"] == "model.fallback")
    assert fallback["model"] == spec and fallback["reason"] == "rate_limit"
    models = [entry.body["model"] for entry in fake.log]
    assert models[:2] == ["fake", "backup"] and out["calls"] == 2
