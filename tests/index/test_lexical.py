"""Lexical search as a specification: chunks cut at definitions, BM25 over them and over
whole files, literal and regex grep with line numbers, fuzzy path finding."""

from __future__ import annotations

from pathlib import Path

from patchwright.index.lexical import (
    MAX_CHUNK_LINES,
    BM25Index,
    chunks_of,
    fuzzy_files,
    grep,
)
from patchwright.index.model import Definition, FileSymbols

PRICING = '''"""Prices."""


def apply_discount(price, percent):
    return price * (1 - percent / 100)


class Invoice:
    def total(self):
        return sum(self.lines)
'''
CART = """from pricing import apply_discount


def checkout(cart):
    return apply_discount(cart.total, cart.coupon)
"""


def symbols_of(path: str, defs: list[tuple[str, int, int, str]]) -> FileSymbols:
    return FileSymbols(
        path, "python", [Definition(n, "function", path, a, b, n, q) for n, a, b, q in defs]
    )


SYMBOLS = {
    "pricing.py": symbols_of("pricing.py", [("apply_discount", 4, 5, "pricing.apply_discount"),
                                            ("Invoice", 8, 10, "pricing.Invoice"),
                                            ("total", 9, 10, "pricing.Invoice.total")]),
    "cart.py": symbols_of("cart.py", [("checkout", 4, 5, "cart.checkout")]),
}  # fmt: skip


def repo(tmp_path: Path) -> Path:
    (tmp_path / "pricing.py").write_text(PRICING)
    (tmp_path / "cart.py").write_text(CART)
    (tmp_path / "blob.bin").write_bytes(b"\0apply_discount")
    return tmp_path


def test_a_file_is_cut_at_its_definitions_each_chunk_named_for_the_one_it_holds() -> None:
    chunks = chunks_of(SYMBOLS["pricing.py"], PRICING.count("\n"))
    assert [(c.start, c.end, c.name) for c in chunks] == [
        (1, 3, ""),  # the file head
        (4, 7, "apply_discount"),
        (8, 8, "Invoice"),
        (9, 10, "Invoice.total"),  # a method by its qualified name, without the module
    ]


def test_a_long_definition_is_split_every_max_chunk_lines() -> None:
    long = symbols_of("big.py", [("huge", 1, 300, "big.huge")])
    assert [(c.start, c.end) for c in chunks_of(long, 300)] == [
        (1, MAX_CHUNK_LINES), (MAX_CHUNK_LINES + 1, 2 * MAX_CHUNK_LINES), (2 * MAX_CHUNK_LINES + 1, 300)
    ]  # fmt: skip
    assert {c.line for c in chunks_of(long, 300)} == {1}  # every piece points at the definition


def test_bm25_ranks_the_chunk_that_uses_the_query_s_words_and_adds_up_per_file(
    tmp_path: Path,
) -> None:
    chunks, files = BM25Index.build(repo(tmp_path), SYMBOLS)
    best, _ = chunks.chunk_scores("discount percent")[0]
    assert (best.path, best.name) == ("pricing.py", "apply_discount")
    assert set(files.file_scores("checkout cart coupon")) == {"cart.py"}
    assert chunks.chunk_scores("zebra") == [] and BM25Index([], []).chunk_scores("x") == []


def test_grep_finds_literals_and_regexes_with_line_numbers_and_skips_binary_files(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    paths = ["blob.bin", "cart.py", "pricing.py"]
    literal = grep(root, paths, "apply_discount(", regex=False)
    assert [(h.path, h.line, h.text) for h in literal] == [
        ("cart.py", 5, "return apply_discount(cart.total, cart.coupon)"),
        ("pricing.py", 4, "def apply_discount(price, percent):"),
    ]
    pattern = grep(root, paths, r"def \w+\(self", regex=True)
    assert [(h.path, h.line) for h in pattern] == [("pricing.py", 9)]
    assert len(grep(root, paths, "apply_discount", regex=False, limit=1)) == 1


def test_fuzzy_path_search_prefers_the_file_whose_name_holds_the_query() -> None:
    paths = [
        "src/shop/pricing.py",
        "src/shop/cart.py",
        "docs/pricing-guide.md",
        "tests/test_cart.py",
    ]
    hits = fuzzy_files(paths, "pricing", k=2)
    assert [h.path for h in hits] == ["src/shop/pricing.py", "docs/pricing-guide.md"]
    assert all(h.line == 0 for h in hits)  # whole-file hits
