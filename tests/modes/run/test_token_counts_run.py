"""A run's token counts say whether the server counted them: llama.cpp's server sends no
usage when it streams, and the counts patchwright then estimates (~3.5 characters a token)
can be far off — a 1024-token Rust reply was recorded as 592. Such counts are marked."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[2] / "llm"))  # the shared fake server

from llm_fakeserver import FakeServer

from patchwright.cli import app

TASK = "apply_discount returns the discount instead of the discounted price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n"
    "=======\n    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeServer]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    with FakeServer() as fake:
        fake.state.variants = [FIX]
        yield fake


def run(shop_repo: Path, where: Path, fake: FakeServer, *extra: str) -> str:
    repo = where / "shop"
    shutil.copytree(shop_repo, repo)
    result = CliRunner().invoke(app, [
        "run", "--repo", str(repo), "--task", TASK, "--model", f"openai-compat:{fake.url}#fake",
        "--yes", "--max-iter", "1", "--edit-format", "diff", "--strategy", "pipeline", *extra,
    ])  # fmt: skip
    return result.stdout


def test_counts_the_server_sent_are_not_marked(
    shop_repo: Path, server: FakeServer, tmp_path: Path
) -> None:
    out = json.loads(run(shop_repo, tmp_path / "a", server, "--json"))
    assert out["outcome"] == "solved"
    assert out["usage"]["completion_tokens"] > 0 and "estimated" not in out["usage"]


def test_counts_estimated_for_a_server_that_sent_none_say_so(
    shop_repo: Path, server: FakeServer, tmp_path: Path
) -> None:
    server.state.send_usage = False
    out = json.loads(run(shop_repo, tmp_path / "a", server, "--json"))
    assert out["outcome"] == "solved"
    assert out["usage"]["estimated"] is True and out["usage"]["completion_tokens"] > 0
    plain = " ".join(run(shop_repo, tmp_path / "b", server).split())  # as wrapped, unwrapped
    assert "tokens (estimated: the server counted none)" in plain
