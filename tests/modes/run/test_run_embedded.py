"""The real embedded model fixing a one-line bug end to end: the smoke test `make test` keeps
(~25 s on 2 cores; the model's longer tests are marked ``slow``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app


@pytest.mark.smoke
def test_embedded_model_fixes_a_one_line_bug(shop_repo: Path, shop: Any) -> None:
    task = (
        "tests/test_pricing.py fails: apply_discount in shop/pricing.py returns the discount "
        "amount instead of the discounted price. Fix apply_discount."
    )
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(shop_repo), "--task", task, "--yes", "--json", "--max-iter", "3"],
    )
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert result.exit_code == 0, out
    assert out["outcome"] == "solved"
    assert out["files_changed"] == ["shop/pricing.py"]
    assert out["usage"]["completion_tokens"] > 0
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""
    fixed = (shop_repo / "shop" / "pricing.py").read_text()
    assert "return price * percent / 100" not in fixed
