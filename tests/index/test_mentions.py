"""What a task's text names: files by path, name or module path; identifiers the repository
defines; quoted phrases and error messages to look for verbatim; files by their stem."""

from __future__ import annotations

import pytest

from patchwright.index.mentions import (
    code_identifiers,
    find_mentions,
    identifier_file_scores,
    literal_file_scores,
    literal_phrases,
    stem_file_scores,
)
from patchwright.index.model import Definition, FileSymbols


def fs(path: str, *names: str, language: str = "python") -> FileSymbols:
    defs = [
        Definition(n, "function", path, i + 1, i + 2, f"def {n}()") for i, n in enumerate(names)
    ]
    return FileSymbols(path, language, defs)


SHOP = {
    "shop/pricing.py": fs("shop/pricing.py", "apply_discount", "round_price"),
    "shop/cart.py": fs("shop/cart.py", "Cart", "total"),
    "shop/__init__.py": fs("shop/__init__.py"),
    "billing/pricing.py": fs("billing/pricing.py", "invoice_total"),
    "shop/utils.py": fs("shop/utils.py", "clamp"),
    "docs/guide.md": fs("docs/guide.md", language="text"),
}


def test_code_like_words_are_identifiers_and_plain_words_are_not() -> None:
    found = code_identifiers("Fix apply_discount; CartTotal breaks shop.pricing and `clamp()`.")
    assert {"apply_discount", "CartTotal", "pricing", "shop", "clamp"} <= found
    assert not {"Fix", "breaks", "and"} & found


def test_a_full_path_names_one_file_and_a_shared_file_name_splits_its_weight() -> None:
    full = find_mentions("shop/pricing.py returns the discount", SHOP).files
    assert full == {"shop/pricing.py": 1.0}
    bare = find_mentions("pricing.py is wrong", SHOP).files
    assert bare == {"shop/pricing.py": 0.5, "billing/pricing.py": 0.5}


def test_a_module_path_names_its_file_and_only_defined_identifiers_are_kept() -> None:
    found = find_mentions(
        "shop.cart crashes in total() after apply_discount, not in frobnicate", SHOP
    )
    assert found.files == {"shop/cart.py": 0.8}
    assert found.identifiers == {"apply_discount"}  # total is not code-like; frobnicate is nowhere


def test_a_name_defined_in_two_files_gives_each_half() -> None:
    symbols = {**SHOP, "shop/legacy.py": fs("shop/legacy.py", "apply_discount")}
    scores = identifier_file_scores(["apply_discount", "clamp"], symbols)
    assert scores == {"shop/pricing.py": 0.5, "shop/legacy.py": 0.5, "shop/utils.py": 1.0}


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ('It prints "price must be positive" and stops.', "price must be positive"),
        ("Calling `Cart.total(-1)` hangs.", "Cart.total(-1)"),
        ("Traceback ...\nValueError: invalid literal for int()", "invalid literal for int()"),
    ],
)
def test_quoted_text_and_error_messages_are_phrases_to_find_verbatim(
    text: str, phrase: str
) -> None:
    assert phrase in literal_phrases(text)


def test_a_phrase_in_one_file_points_at_it_and_one_found_nowhere_points_nowhere() -> None:
    texts = {"shop/pricing.py": 'raise ValueError("price must be positive")\n', "shop/cart.py": ""}
    scores = literal_file_scores(["price must be positive", "never written"], texts)
    assert scores == {"shop/pricing.py": 1.0}


def test_a_file_s_stem_used_as_a_word_points_at_it_but_generic_stems_do_not() -> None:
    scores = stem_file_scores("The cart forgets the pricing rules; utils and shop look fine", SHOP)
    assert scores == {"shop/cart.py": 1.0, "shop/pricing.py": 0.5, "billing/pricing.py": 0.5}
