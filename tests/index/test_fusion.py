"""How localisation's rankings are combined: weighted reciprocal rank fusion where equal
scores share a rank, test and auxiliary files damped; functions ranked by their chunk's
place and their file's score, the ones the task names first."""

from __future__ import annotations

import pytest

from patchwright.index.lexical import Chunk
from patchwright.index.locate import (
    Weights,
    fuse,
    is_auxiliary_path,
    is_test_path,
    rank_symbols,
    ranked,
)


@pytest.mark.parametrize(
    "path",
    ["tests/test_cart.py", "pkg/tests/helpers.py", "test_cart.py", "cart_test.go", "conftest.py",
     "src/cart.test.js", "web/__tests__/cart.tsx", "spec/cart.rb"],
)  # fmt: skip
def test_test_files_and_helpers_are_recognised(path: str) -> None:
    assert is_test_path(path)


@pytest.mark.parametrize("path", ["shop/cart.py", "shop/testament.py", "contest/rules.py"])
def test_code_that_only_sounds_like_a_test_is_not_one(path: str) -> None:
    assert not is_test_path(path)


def test_docs_examples_and_packaging_scripts_are_auxiliary() -> None:
    assert all(map(is_auxiliary_path, ["docs/conf.py", "examples/demo.py", "setup.py"]))
    assert not is_auxiliary_path("shop/docs_builder.py")


def test_ranked_keeps_positive_scores_best_first_ties_by_name() -> None:
    assert ranked({"b.py": 1.0, "a.py": 1.0, "c.py": 2.0, "z.py": 0.0}) == ["c.py", "a.py", "b.py"]


def test_two_methods_agreeing_beat_one_method_s_first_place() -> None:
    weights = Weights(bm25=1.0, mentions=1.0, rrf_k=10.0)
    fused = fuse({"bm25": ["solo.py", "both.py"], "mentions": ["both.py"]}, weights)
    assert fused["both.py"] == pytest.approx(1 / 12 + 1 / 11)
    assert fused["solo.py"] == pytest.approx(1 / 11)
    assert ranked(fused) == ["both.py", "solo.py"]


def test_equal_scores_share_the_better_rank() -> None:
    fused = fuse({"bm25": [("a.py", 3.0), ("b.py", 3.0), ("c.py", 1.0)]}, Weights(bm25=1.0))
    assert fused["a.py"] == fused["b.py"] == pytest.approx(1 / 11)
    assert fused["c.py"] == pytest.approx(1 / 13)  # third place, not second


def test_test_files_are_damped_and_a_method_weighted_zero_counts_nothing() -> None:
    weights = Weights(bm25=1.0, semantic=0.0, test_penalty=0.3)
    fused = fuse({"bm25": ["tests/test_cart.py", "cart.py"], "semantic": ["other.py"]}, weights)
    assert fused["tests/test_cart.py"] == pytest.approx(0.3 / 11)
    assert "other.py" not in fused and ranked(fused) == ["cart.py", "tests/test_cart.py"]


def test_a_function_the_task_names_outranks_a_better_placed_chunk_of_the_same_file() -> None:
    hits = [
        (Chunk("cart.py", 1, 9, "Cart.add", 1), 9.0),
        (Chunk("cart.py", 10, 20, "Cart.total", 10), 5.0),
        (Chunk("other.py", 1, 5, "helper", 1), 4.0),  # its file was not ranked
        (Chunk("cart.py", 21, 30, "", 21), 3.0),  # the file head: no function
    ]
    symbols = rank_symbols(hits, {"cart.py": 1.0}, mentioned={"total"}, k=5)
    assert [(s.name, s.line) for s in symbols] == [("Cart.total", 10), ("Cart.add", 1)]
    assert symbols[0].score == pytest.approx(3.0 / 6) and symbols[1].score == pytest.approx(1 / 5)
