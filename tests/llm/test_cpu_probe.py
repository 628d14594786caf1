"""A llama.cpp built for another CPU is refused with what to do, never a process killed by
SIGILL; a build that answered on this CPU is not asked again. The children are real
processes; one of them dies of a real SIGILL."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.llm import cpu_probe
from patchwright.llm.errors import ModelConfigError

DIES = [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGILL)"]
ANSWERS = [sys.executable, "-c", "pass"]
WEIGHTS = Path("unused.gguf")


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("PATCHWRIGHT_LLAMA_PROBE", raising=False)
    monkeypatch.setattr(cpu_probe, "_checked", set())  # a fresh process
    return tmp_path / "cache"


def stamps(cache_home: Path) -> list[Path]:
    folder = cache_home / "patchwright" / "llama-probe"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_a_build_that_dies_of_an_illegal_instruction_is_refused_with_the_fix(
    cache_home: Path,
) -> None:
    with pytest.raises(ModelConfigError, match=r"illegal instruction \(SIGILL\)") as caught:
        cpu_probe.ensure_runs(WEIGHTS, probe=DIES)
    assert "make setup" in str(caught.value)
    assert stamps(cache_home) == []  # asked again next time


def test_a_build_that_answered_is_not_asked_again_by_a_later_process(
    cache_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cpu_probe.ensure_runs(WEIGHTS, probe=ANSWERS)
    assert len(stamps(cache_home)) == 1
    monkeypatch.setattr(cpu_probe, "_checked", set())  # another process, same machine
    cpu_probe.ensure_runs(WEIGHTS, probe=DIES)  # the stamp answers; the child never runs


def test_another_cpu_asks_again(cache_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cpu_probe.ensure_runs(WEIGHTS, probe=ANSWERS)
    monkeypatch.setattr(cpu_probe, "_checked", set())
    monkeypatch.setattr(cpu_probe, "_cpu", lambda: "model name : another CPU\nflags : sse2")
    with pytest.raises(ModelConfigError, match="illegal instruction"):
        cpu_probe.ensure_runs(WEIGHTS, probe=DIES)


def test_any_other_failure_says_how_the_child_ended_and_its_last_words() -> None:
    says = [sys.executable, "-c", "import sys; sys.exit('cannot map the weights')"]
    with pytest.raises(ModelConfigError, match=r"\(exit 1: cannot map the weights\)"):
        cpu_probe.ensure_runs(WEIGHTS, probe=says)


def test_the_probe_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATCHWRIGHT_LLAMA_PROBE", "0")
    cpu_probe.ensure_runs(WEIGHTS, probe=DIES)


def test_a_run_on_a_cpu_the_build_does_not_fit_ends_with_the_reason_and_the_repo_untouched(
    shop_repo: Path, shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cpu_probe, "_probe_command", lambda weights: DIES)
    before = (shop_repo / "shop" / "pricing.py").read_bytes()
    args = ["run", "--repo", str(shop_repo), "--model", "local:qwen2.5-coder-0.5b", "--yes",
            "--json", "--task", "Fix apply_discount in shop/pricing.py."]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code != 0
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert "illegal instruction" in json.dumps(out)
    assert (shop_repo / "shop" / "pricing.py").read_bytes() == before
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""


@pytest.mark.slow
def test_the_real_child_loads_the_weights_answers_and_leaves_its_stamp(cache_home: Path) -> None:
    from patchwright.llm.weights import resolve

    cpu_probe.ensure_runs(resolve("qwen2.5-coder-0.5b").path)
    assert len(stamps(cache_home)) == 1
