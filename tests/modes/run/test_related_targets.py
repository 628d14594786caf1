"""A bug-fix task whose failing test exists is judged by that test, not left ``unverified``:
the test is found by its name in any case or form ("Checkout" ~ ``test_checkout``), or — when
the task names nothing — by the code it ran at baseline (the fix is in ``shop/rates.py``, which
the test runs but its traceback never shows). Real git repos, real pytest, scripted replies,
through both strategies."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Script = Callable[[list[str]], Path]

RATES = '''"""Sales tax."""


def tax_rate() -> float:
    """The sales tax rate, as a fraction of the price."""
    return 0.1
'''
CART = '''"""The shopping cart."""

from shop.rates import tax_rate


def checkout(prices: list[float]) -> float:
    """What the customer pays for ``prices``, tax included."""
    subtotal = sum(prices)
    return round(subtotal * (1 + tax_rate()), 2)
'''
INVENTORY = '''"""Stock keeping."""


def count(items: list[str]) -> int:
    """How many items are in stock."""
    return len(items) - 1
'''
TEST_CART = """from shop.cart import checkout


def test_checkout() -> None:
    assert checkout([60.0, 40.0]) == 120.0
"""
TEST_INVENTORY = """from shop.inventory import count


def test_inventory_count() -> None:
    assert count(["apple", "pear"]) == 2
"""
PYPROJECT = """[project]
name = "shop"
version = "0.1.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
"""

CHECKOUT = "tests/test_cart.py::test_checkout"
INVENTORY_COUNT = "tests/test_inventory.py::test_inventory_count"
NAMED_TASK = "Checkout totals are too low: a 100 order should cost 120 with tax."
UNNAMED_TASK = "Orders are undercharged: a 100 order should cost 120 with tax."


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


FIX = sr("shop/rates.py", "    return 0.1", "    return 0.2")
COMMENT = sr("shop/rates.py", "    return 0.1", "    return 0.1  # the rate")
OTHER_COMMENT = sr("shop/rates.py", '"""Sales tax."""', '"""Sales tax (VAT)."""')


@pytest.fixture
def repo(tmp_path: Path, shop: Any) -> Path:
    """shop/cart.py sums prices with shop/rates.py's tax rate, which is wrong; the checkout
    test fails, and so does an unrelated inventory test."""
    root = tmp_path / "store"
    files = {
        "pyproject.toml": PYPROJECT,
        "shop/__init__.py": "",
        "shop/rates.py": RATES,
        "shop/cart.py": CART,
        "shop/inventory.py": INVENTORY,
        "tests/test_cart.py": TEST_CART,
        "tests/test_inventory.py": TEST_INVENTORY,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    shop.git(root, "init", "-q", "-b", "main")
    shop.git(root, "add", "-A")
    shop.git(root, "commit", "-q", "-m", "initial")
    return root


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "content": "",
        "tool_calls": [{"id": f"c_{name}", "name": name, "arguments": arguments}],
    }


@pytest.fixture
def steps(tmp_path: Path) -> Callable[[list[dict[str, Any]]], Path]:
    def write(entries: list[dict[str, Any]]) -> Path:
        path = tmp_path / "trajectory.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in entries))
        return path

    return write


APPROVE = call("approve", commit_message="fix(rates): charge the 20% sales tax")


# -- the pipeline (the scripted model's default strategy) ----------------------------------


def test_a_comment_only_reply_fails_the_test_the_task_names_in_other_words(
    repo: Path, script: Script, shop: Any
) -> None:
    before = shop.fingerprint(repo)
    code, out = shop.run(repo, NAMED_TASK, script([COMMENT, OTHER_COMMENT]))
    assert (code, out["outcome"], out["strategy"]) == (1, "failed", "pipeline"), json.dumps(out)
    assert out["criterion"]["targets"] == [CHECKOUT]
    assert out["criterion"]["remaining"] == [CHECKOUT]
    assert out["criterion"]["unrelated_failures"] == [INVENTORY_COUNT]
    assert shop.fingerprint(repo) == before


def test_the_fix_in_a_file_the_traceback_never_shows_is_solved(
    repo: Path, script: Script, shop: Any
) -> None:
    code, out = shop.run(repo, NAMED_TASK, script([FIX, "fix(rates): charge the 20% sales tax"]))
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)
    assert out["criterion"]["met"] is True
    assert "return 0.2" in (repo / "shop" / "rates.py").read_text()
    assert shop.git(repo, "log", "-1", "--format=%s").strip() == (
        "fix(rates): charge the 20% sales tax"
    )


def test_when_the_task_names_nothing_the_code_the_failing_test_ran_links_it(
    repo: Path, script: Script, shop: Any
) -> None:
    before = shop.fingerprint(repo)
    code, out = shop.run(repo, UNNAMED_TASK, script([COMMENT, COMMENT]))
    assert (code, out["outcome"]) == (1, "failed"), json.dumps(out)
    assert out["criterion"]["targets"] == []
    assert out["criterion"]["covered_tests"] == [CHECKOUT, INVENTORY_COUNT]
    assert out["criterion"]["remaining"] == [CHECKOUT]  # the inventory test ran no tax code
    assert shop.fingerprint(repo) == before
    code, out = shop.run(repo, UNNAMED_TASK, script([FIX, "fix(rates): charge the 20% sales tax"]))
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)


# -- the agent strategy -------------------------------------------------------------------


def test_the_agent_strategy_fails_a_comment_only_change(
    repo: Path, steps: Callable[[list[dict[str, Any]]], Path], shop: Any
) -> None:
    before = shop.fingerprint(repo)
    finish = call("finish", summary="documented the rate")
    script = steps([call("edit", edits=COMMENT), finish, finish, finish, finish])
    code, out = shop.run(repo, NAMED_TASK, script, "--strategy", "agent", "--no-plan")
    assert (code, out["outcome"], out["strategy"]) == (1, "failed", "agent"), json.dumps(out)
    assert out["criterion"]["remaining"] == [CHECKOUT]
    # --max-iter 2 (shop.run's) bounds the coder's rounds: two changes judged, both failing
    assert out["reason"].startswith("no change was kept within --max-iter 2 round(s)")
    assert "test_checkout" in out["reason"]  # what failed, in the reason
    assert shop.fingerprint(repo) == before


def test_the_agent_strategy_solves_the_fix_in_rates(
    repo: Path, steps: Callable[[list[dict[str, Any]]], Path], shop: Any
) -> None:
    script = steps([call("edit", edits=FIX), call("finish", summary="20% tax"), APPROVE])
    code, out = shop.run(repo, NAMED_TASK, script, "--strategy", "agent", "--no-plan")
    assert (code, out["outcome"], out["strategy"]) == (0, "solved", "agent"), json.dumps(out)
    assert out["criterion"]["targets"] == [CHECKOUT]
    assert shop.git(repo, "log", "-1", "--format=%s").strip() == (
        "fix(rates): charge the 20% sales tax"
    )


def test_the_agent_strategy_links_the_test_by_what_it_ran(
    repo: Path, steps: Callable[[list[dict[str, Any]]], Path], shop: Any
) -> None:
    script = steps([call("edit", edits=FIX), call("finish", summary="20% tax"), APPROVE])
    code, out = shop.run(repo, UNNAMED_TASK, script, "--strategy", "agent", "--no-plan")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)
    assert out["criterion"]["remaining"] == []
