"""``locate``: a clear issue text puts the planted bug's file first."""

from __future__ import annotations

from pathlib import Path

from index_repo import SHOP, make_repo

from patchwright.index import RepoIndex

BUGGY = {
    **SHOP,
    "shop/shipping.py": (
        "WEIGHT_LIMIT_KG = 30\n\n\n"
        "def shipping_cost(weight_kg: float, express: bool = False) -> float:\n"
        '    """Flat rate plus a per-kilogram charge; express doubles it."""\n'
        "    base = 4.99 + 0.5 * weight_kg\n"
        "    return base * 2 if express else base\n\n\n"
        "def can_ship(weight_kg: float) -> bool:\n"
        "    return weight_kg < WEIGHT_LIMIT_KG  # bug: a parcel of exactly 30 kg is allowed\n"
    ),
    "shop/reports.py": (
        "from shop.money import format_money\n\n\n"
        "def daily_report(totals: list[float]) -> str:\n"
        "    return '\\n'.join(format_money(t) for t in totals)\n"
    ),
}
ISSUE = (
    "Parcels that weigh exactly the weight limit are rejected\n\n"
    "A parcel of 30 kg cannot be shipped although the limit is 30 kg: can_ship() returns "
    "False at the limit. It should accept weights up to and including the limit."
)


def test_locate_ranks_the_planted_bug_first(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BUGGY)
    with RepoIndex(repo) as index:
        located = index.locate(ISSUE, k=5)
    assert located.files[0].path == "shop/shipping.py"
    assert located.symbols[0].path == "shop/shipping.py"
    assert located.symbols[0].name == "can_ship"
    assert located.symbols[0].line == 10
    scores = [f.score for f in located.files]
    assert scores == sorted(scores, reverse=True)


def test_locate_without_identifiers_still_uses_words(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BUGGY)
    with RepoIndex(repo) as index:
        located = index.locate("the coupon discount is not applied to the price at checkout")
    assert located.files[0].path in {"shop/pricing.py", "shop/cart.py"}
    assert {"shop/pricing.py", "shop/cart.py"} <= {f.path for f in located.files[:3]}


def test_locate_follows_paths_named_in_a_traceback(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BUGGY)
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/venv/lib/python3.11/site-packages/shop/reports.py", line 5\n'
        "TypeError: unsupported format string"
    )
    with RepoIndex(repo) as index:
        assert index.locate(text).files[0].path == "shop/reports.py"


def test_locate_json_shape(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", BUGGY)
    with RepoIndex(repo) as index:
        data = index.locate(ISSUE, k=3).to_json()
    assert set(data) == {"files", "symbols"}
    assert set(data["files"][0]) == {"path", "score"}
    assert set(data["symbols"][0]) == {"path", "name", "line", "score"}
    assert len(data["files"]) <= 3
