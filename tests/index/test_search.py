"""Exact, regex, fuzzy, BM25 and semantic search over a real repository."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from index_repo import SHOP, make_repo

from patchwright.index import RepoIndex, SearchError
from patchwright.index.lexical import tokenize
from patchwright.index.semantic import unavailable_reason


def test_exact_search_reports_paths_and_line_numbers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        hits = index.search("round_cents(", mode="exact")
    assert [(h.path, h.line) for h in hits] == [
        ("shop/money.py", 1),
        ("shop/money.py", 6),
        ("shop/pricing.py", 6),
        ("shop/pricing.py", 10),
    ]
    assert hits[0].text == "def round_cents(amount: float) -> float:"


def test_regex_search_and_its_errors(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        hits = index.search(r"def \w+\(self, sku", mode="regex")
        assert [(h.path, h.line) for h in hits] == [
            ("shop/inventory.py", 5),
            ("shop/inventory.py", 8),
        ]
        with pytest.raises(SearchError, match="invalid regular expression"):
            index.search("def (", mode="regex")
        with pytest.raises(SearchError, match="unknown search mode"):
            index.search("x", mode="nope")


def test_fuzzy_search_finds_files_by_misspelt_names(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        hits = index.search("invntory", mode="fuzzy", k=3)
    assert hits[0].path == "shop/inventory.py"


def test_bm25_ranks_chunks_cut_at_definitions(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        hits = index.search("reserve stock for a sku", mode="bm25", k=3)
    assert (hits[0].path, hits[0].name, hits[0].line) == (
        "shop/inventory.py",
        "Inventory.reserve",
        8,
    )


def test_auto_mode_prefers_literal_matches_then_bm25(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        assert index.search("self.items.append", mode="auto")[0].line == 10
        assert index.search("coupon discount at checkout", mode="auto")[0].path == "shop/cart.py"


def test_tokenizer_splits_identifiers_and_keeps_them_whole() -> None:
    tokens = tokenize("parseConfigFile snake_case_name HTTPServer")
    assert {"parseconfigfile", "parse", "config", "file"} <= set(tokens)
    assert {"snake_case_name", "snake", "case", "name"} <= set(tokens)
    assert {"httpserver", "http", "server"} <= set(tokens)


needs_model = pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason()))


@needs_model
def test_minilm_in_numpy_matches_sentence_transformers() -> None:
    from patchwright.index.embed import shared_model

    vectors = shared_model().encode(
        ["A man is eating food.", "A man is eating a piece of bread.", "The girl carries a baby."]
    )
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # published sentence-transformers similarity for the first pair: 0.7553
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.7553, abs=0.01)
    assert float(vectors[0] @ vectors[2]) < 0.2


@needs_model
def test_semantic_search_is_incremental_and_finds_meaning(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo, semantic=True) as index:
        hits = index.search("is there enough merchandise in the warehouse", mode="semantic", k=3)
        assert hits[0].path == "shop/inventory.py"
        assert (repo / ".patchwright" / "cache" / "vectors.lance").is_dir()
        first = index.semantic_index()
        assert first is not None
    with RepoIndex(repo, semantic=True) as again:
        index2 = again.semantic_index()
        assert index2 is not None and getattr(index2, "embedded", None) == 0


def test_semantic_is_skipped_with_a_reason_when_not_built(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", SHOP)
    with RepoIndex(repo) as index:
        assert index.semantic_index() is None
        assert index.semantic_note
