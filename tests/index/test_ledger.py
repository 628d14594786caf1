"""SYMBOLS.json in PyOB's schema, and ripple detection (the cascade queue)."""

from __future__ import annotations

import json
from pathlib import Path

from index_repo import SHOP, make_repo

from patchwright.index import RepoIndex, cascade_queue


def test_ledger_maps_names_to_files_and_files_to_referenced_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        target = index.write_ledger()
    data = json.loads(target.read_text())
    assert target == repo / "SYMBOLS.json"
    assert set(data) == {"definitions", "references"}
    assert data["definitions"]["round_cents"] == "shop/money.py"
    assert data["definitions"]["Cart"] == "shop/cart.py"
    assert "round_cents" in data["references"]["shop/pricing.py"]
    assert {"apply_discount", "format_money", "total_with_tax"} <= set(
        data["references"]["shop/cart.py"]
    )
    # only names the repository defines are listed
    assert "append" not in data["references"]["shop/cart.py"]


def test_removed_and_resigned_definitions_ripple_to_their_users(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    old = SHOP["shop/money.py"]
    new = (
        "def round_cents(amount: float, places: int) -> float:\n    return round(amount, places)\n"
    )
    with RepoIndex(repo) as index:
        found = {r.name: r for r in index.ripples("shop/money.py", old, new)}
    assert set(found) == {"round_cents", "format_money"}
    assert found["round_cents"].change == "signature"
    assert found["round_cents"].new_signature == (
        "def round_cents(amount: float, places: int) -> float"
    )
    assert found["round_cents"].referenced_by == ["shop/pricing.py"]
    assert found["format_money"].change == "removed"
    assert found["format_money"].new_signature is None
    assert found["format_money"].referenced_by == ["shop/cart.py"]
    assert cascade_queue(list(found.values())) == ["shop/pricing.py", "shop/cart.py"]


def test_body_only_edits_cause_no_ripples(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    old = SHOP["shop/money.py"]
    new = old.replace("round(amount, 2)", "float(round(amount, 2))")
    with RepoIndex(repo) as index:
        assert index.ripples("shop/money.py", old, new) == []
