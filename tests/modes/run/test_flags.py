"""``patchwright run``'s flags reach the task as typed values, and a combination a strategy
cannot honour is a usage error (exit 2) that names it, before anything runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."


def run(repo: Path, replies: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["run", "--repo", str(repo), "--task", TASK, "--model",
                                      f"scripted:{replies}", "--yes", "--json", *extra])  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--candidates", "3", "--strategy", "agent"],
         "--candidates 3 samples several replies per iteration, which only the pipeline"),
        (["--edit-format", "patch"], "--edit-format patch: use one of auto, diff, whole, udiff"),
        (["--strategy", "fast"], "--strategy fast: use one of auto, pipeline, agent"),
        (["--test-timeout", "0"], "--test-timeout 0: give a positive number"),
    ],
)  # fmt: skip
def test_a_combination_no_strategy_honours_is_a_usage_error(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, flags: list[str],
    message: str,
) -> None:  # fmt: skip
    before = shop.fingerprint(shop_repo)
    code, out = run(shop_repo, script(["x"]), *flags)
    assert (code, out["outcome"]) == (2, "error")
    assert message in out["error"]
    assert shop.fingerprint(shop_repo) == before


def test_candidates_must_be_a_number_or_auto(
    shop_repo: Path, script: Callable[[list[str]], Path]
) -> None:
    result = CliRunner().invoke(app, ["run", "--repo", str(shop_repo), "--task", TASK, "--json",
                                      "--candidates", "many"])  # fmt: skip
    assert result.exit_code == 2
    assert "--candidates many: give a positive number or auto" in result.output
