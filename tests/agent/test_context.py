"""What the model gets to see: relevance, tracebacks, memory files and the token budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.agent.context import ContextRequest, approx_tokens, build_context
from patchwright.agent.edit_format import choose_format
from patchwright.agent.memory import read_memory
from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.agent.relevance import mentioned_files, rank_files, task_terms

TEXTS = {
    "shop/pricing.py": "def apply_discount(price, percent):\n    return price * percent\n",
    "shop/cart.py": "class Cart:\n    def add(self, item):\n        self.items.append(item)\n",
    "docs/notes.md": "Nothing about money here.\n",
    "tests/test_pricing.py": "from shop.pricing import apply_discount\n",
}


def test_task_terms_split_identifiers_and_drop_stopwords() -> None:
    assert task_terms("Fix the apply_discount function") == ["apply_discount", "apply", "discount"]


def test_files_named_in_the_task_are_found_by_path_or_unique_name() -> None:
    found = mentioned_files("see shop/cart.py and test_pricing.py", sorted(TEXTS))
    assert found == ["shop/cart.py", "tests/test_pricing.py"]


def test_relevance_ranks_the_file_defining_the_identifier_first() -> None:
    ranked = rank_files("apply_discount gives the wrong price", TEXTS)
    assert ranked[0][0] == "shop/pricing.py"
    assert "docs/notes.md" not in [path for path, _ in ranked]


def test_traceback_frames_map_to_repo_files() -> None:
    output = (
        'File "/tmp/x/repo/shop/pricing.py", line 2, in apply_discount\n'
        "tests/test_pricing.py:7: AssertionError\n"
        'File "/usr/lib/python3.11/unittest.py", line 9\n'
    )
    assert referenced_files(output, sorted(TEXTS)) == [
        ("shop/pricing.py", 2),
        ("tests/test_pricing.py", 7),
    ]


def test_memory_is_read_from_root_down_to_cwd_and_capped(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root rules")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "CLAUDE.md").write_text("pkg rules " * 100)
    memory = read_memory(tmp_path, tmp_path / "pkg", max_chars=50)
    assert memory.sources == ["AGENTS.md", "pkg/CLAUDE.md"]
    assert memory.text.startswith("root rules")
    assert memory.truncated and len(memory.text) < 100


def test_context_puts_named_and_traceback_files_first_within_budget(tmp_path: Path) -> None:
    req = ContextRequest(
        task="Fix apply_discount, see shop/cart.py",
        texts=dict(TEXTS),
        budget_tokens=10_000,
        failure_output='File "shop/pricing.py", line 2',
    )
    ctx = build_context(tmp_path, req)
    assert ctx.paths[:2] == ["shop/cart.py", "shop/pricing.py"]
    assert ctx.files[1].reason == "in a failing test's traceback"
    assert ctx.tokens <= 10_000


def test_context_lists_what_does_not_fit(tmp_path: Path) -> None:
    texts = {"big.py": "x = 1\n" * 2000, "small.py": "apply_discount = 1\n"}
    req = ContextRequest(task="apply_discount in small.py", texts=texts, budget_tokens=200)
    ctx = build_context(tmp_path, req)
    assert ctx.paths == ["small.py"]
    assert sum(approx_tokens(f.text) for f in ctx.files) <= 200


@pytest.mark.parametrize(
    ("requested", "small", "lines", "expected"),
    [
        ("auto", True, [40], "whole"),  # a small model, small files
        ("auto", True, [900], "diff"),
        ("auto", False, [40], "diff"),
        ("udiff", True, [40], "udiff"),
    ],
)
def test_edit_format_choice(requested: str, small: bool, lines: list[int], expected: str) -> None:
    assert choose_format(requested, small, lines) == expected


def test_unknown_edit_format_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown edit format"):
        choose_format("patch", True, [])
