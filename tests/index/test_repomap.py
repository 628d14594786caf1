"""The ranked repo map: token budget, focus, caching, and the PageRank it rests on."""

from __future__ import annotations

from pathlib import Path

import pytest
from index_repo import SHOP, make_repo, write_files

from patchwright.index import RepoIndex
from patchwright.index.graph import pagerank
from patchwright.index.repomap import approx_tokens


def _big_repo(root: Path) -> Path:
    files = dict(SHOP)
    for m in range(30):
        body = [f"from pkg.mod{(m + 1) % 30} import helper_{(m + 1) % 30}_0\n\n"]
        for f in range(8):
            body.append(
                f"def helper_{m}_{f}(value: int, scale: float = 1.0) -> float:\n"
                f"    return helper_{(m + 1) % 30}_0(value) * scale + {f}\n\n"
            )
        body.append(f"class Service{m}:\n    def run(self, job: str) -> None:\n        pass\n")
        files[f"pkg/mod{m}.py"] = "".join(body)
    return make_repo(root, files)


@pytest.mark.parametrize("budget", [256, 1024, 2048])
def test_map_fills_the_token_budget_within_ten_percent(tmp_path: Path, budget: int) -> None:
    repo = _big_repo(tmp_path / "repo")
    with RepoIndex(repo) as index:
        text = index.repo_map(tokens=budget)
    assert 0.9 * budget <= approx_tokens(text) <= budget


def test_map_honours_a_custom_token_counter(tmp_path: Path) -> None:
    repo = _big_repo(tmp_path / "repo")

    def words(text: str) -> int:
        return len(text.split())

    with RepoIndex(repo) as index:
        text = index.repo_map(tokens=300, count_tokens=words)
    assert 270 <= words(text) <= 300


def test_map_shows_signatures_grouped_by_file_with_bodies_elided(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        text = index.repo_map(tokens=4096)
    assert "shop/money.py:\n" in text
    assert "def round_cents(amount: float) -> float" in text
    assert "return round(amount, 2)" not in text
    # a method is shown under its class
    cart = text.split("shop/cart.py:\n", 1)[1]
    assert cart.index("class Cart") < cart.index("def checkout")


def test_focus_pulls_the_focused_file_and_identifier_to_the_front(tmp_path: Path) -> None:
    repo = _big_repo(tmp_path / "repo")
    with RepoIndex(repo) as index:
        plain = index.repo_map(tokens=200)
        focused = index.repo_map(focus=["shop/inventory.py", "reserve"], tokens=200)
    assert "def reserve" not in plain
    assert "def reserve" in focused


def test_map_is_cached_by_content_and_budget_and_follows_edits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        first = index.repo_map(tokens=4096)
        assert index.repo_map(tokens=4096) == first
        write_files(repo, {"shop/money.py": "def to_cents(amount: float) -> int:\n    return 0\n"})
        index.update()
        second = index.repo_map(tokens=4096)
    assert "to_cents" in second and "to_cents" not in first


def test_pagerank_agrees_with_networkx() -> None:
    from networkx import DiGraph
    from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

    edges = [("a", "b", 2.0), ("b", "c", 1.0), ("c", "a", 1.0), ("a", "c", 0.5), ("d", "a", 1.0)]
    nodes = ["a", "b", "c", "d", "e"]
    personal = {"c": 1.0, "e": 0.5}
    graph = DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_weighted_edges_from(edges)
    expected = _pagerank_python(graph, personalization=personal, dangling=personal, tol=1e-12)
    ours = pagerank(nodes, edges, personal)
    for node in nodes:
        assert ours[node] == pytest.approx(expected[node], abs=1e-6)
