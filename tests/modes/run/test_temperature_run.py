"""Same task, same model, same outcome: a run's first request is greedy, so a server that
samples by default (llama.cpp's server and Ollama at 0.8) answers it the same every time;
a repair that samples on purpose sends a seed from its place in the task, so it draws the
same reply every time too."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parents[2] / "llm"))  # the shared fake server

from llm_fakeserver import FakeServer

from patchwright.cli import app

TASK = "apply_discount returns the discount instead of the discounted price. Fix it."


def edit(replace: str) -> str:
    return (
        "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n"
        f"=======\n    {replace}\n>>>>>>> REPLACE\n```\n"
    )


VARIANTS = [
    edit("return price * (1 - percent / 100)"),  # the greedy answer: the fix
    *(edit(f"return price * percent / {d}") for d in (50, 200, 300, 400, 500)),
]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeServer]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PATCHWRIGHT_TEMPERATURE", raising=False)
    with FakeServer() as fake:
        fake.state.variants = list(VARIANTS)
        yield fake


def run_once(shop_repo: Path, where: Path, fake: FakeServer, max_iter: int = 1) -> dict[str, Any]:
    repo = where / "shop"
    shutil.copytree(shop_repo, repo)
    result = CliRunner().invoke(app, [
        "run", "--repo", str(repo), "--task", TASK, "--model", f"openai-compat:{fake.url}#fake",
        "--yes", "--json", "--max-iter", str(max_iter), "--candidates", "1",
        "--edit-format", "diff", "--strategy", "pipeline",
    ])  # fmt: skip
    return dict(json.loads(result.stdout))


def test_two_runs_of_one_task_against_a_sampling_server_end_alike(
    shop_repo: Path, server: FakeServer, tmp_path: Path
) -> None:
    first = run_once(shop_repo, tmp_path / "a", server)
    requests = len(server.log)
    second = run_once(shop_repo, tmp_path / "b", server)
    assert first["outcome"] == second["outcome"] == "solved", (first, second)
    assert first["temperatures"][0] == second["temperatures"][0] == 0
    assert server.log[0].body["temperature"] == server.log[requests].body["temperature"] == 0
    fixed = (tmp_path / "a" / "shop" / "shop" / "pricing.py").read_text()
    assert fixed == (tmp_path / "b" / "shop" / "shop" / "pricing.py").read_text()
    assert "(1 - percent / 100)" in fixed


def test_two_runs_whose_repairs_sample_draw_the_same_replies_and_end_alike(
    shop_repo: Path, server: FakeServer, tmp_path: Path
) -> None:
    server.state.variants = [*VARIANTS[1:], VARIANTS[0]]  # greedy is wrong: repairs sample
    first = run_once(shop_repo, tmp_path / "a", server, max_iter=3)
    requests = len(server.log)
    second = run_once(shop_repo, tmp_path / "b", server, max_iter=3)
    assert first["outcome"] == second["outcome"], (first, second)
    assert first["temperatures"] == second["temperatures"]
    assert first["seeds"] == second["seeds"]
    sampled = [i for i, t in enumerate(first["temperatures"]) if t]
    assert sampled and all(first["seeds"][i] is not None for i in sampled)
    assert [e.body.get("seed") for e in server.log[:requests]] == [
        e.body.get("seed") for e in server.log[requests:]
    ]
    code = [(tmp_path / w / "shop" / "shop" / "pricing.py").read_text() for w in "ab"]
    assert code[0] == code[1]
