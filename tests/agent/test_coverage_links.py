"""A failing test that ran, at baseline, a function the change touches is one of the change's
targets — though its traceback never shows that function. Real repositories, real pytest runs
under coverage.py in the sandbox."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from patchwright.agent.criterion import Criterion, decide, evaluate, link_by_coverage
from patchwright.agent.relations.coverage_links import (
    changed_in,
    changed_lines,
    covered_spans,
    reaches,
)
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, take_baseline
from patchwright.verify.testcover import cover_tests

RATES = '''"""Sales tax."""

REGION = "eu"


def tax_rate() -> float:
    """The sales tax rate."""
    return 0.1


def duty(kind: str) -> float:
    return 0.05
'''
FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "shop/__init__.py": "",
    "shop/rates.py": RATES,
    "shop/cart.py": (
        "from shop.rates import tax_rate\n\n\n"
        "def checkout(prices):\n    return round(sum(prices) * (1 + tax_rate()), 2)\n"
    ),
    "shop/inventory.py": "def count(items):\n    return len(items) - 1\n",
    "tests/test_cart.py": (
        "from shop.cart import checkout\n\n\n"
        "def test_checkout():\n    assert checkout([100.0]) == 120.0\n\n\n"
        "class TestCart:\n    def test_empty(self):\n        assert checkout([]) == 1\n"
    ),
    "tests/test_inventory.py": (
        "from shop.inventory import count\n\n\n"
        "def test_inventory_count():\n    assert count(['a']) == 1\n"
    ),
}
CHECKOUT = "tests/test_cart.py::test_checkout"
EMPTY = "tests/test_cart.py::TestCart::test_empty"
INVENTORY = "tests/test_inventory.py::test_inventory_count"
TAX_BODY = 8  # "    return 0.1" in RATES
DUTY_BODY = 12


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def sandbox(shop: Path) -> Iterator[Sandbox]:
    box = Sandbox(shop)
    yield box
    box.close()


PYTEST = f"{sys.executable} -m pytest -q"


def test_each_failing_test_gets_the_lines_it_ran(shop: Path, sandbox: Sandbox) -> None:
    lines = cover_tests(shop, sandbox, PYTEST, [CHECKOUT, EMPTY, INVENTORY])
    assert lines.note == "" and set(lines.tests) == {CHECKOUT, EMPTY, INVENTORY}
    assert TAX_BODY in lines.tests[CHECKOUT]["shop/rates.py"]
    assert "shop/rates.py" not in lines.tests[INVENTORY]
    assert 5 in lines.tests[INVENTORY]["tests/test_inventory.py"]
    assert 3 in lines.shared["shop/rates.py"]  # REGION = "eu", run at import


def test_without_coverage_py_nothing_is_measured_and_a_note_says_why(
    shop: Path, sandbox: Sandbox
) -> None:
    (shop / "coverage.py").write_text("raise ImportError('not in this environment')\n")
    lines = cover_tests(shop, sandbox, PYTEST, [CHECKOUT])
    assert lines.tests == {}
    assert "coverage.py is not importable" in lines.note and "not in this environment" in lines.note


def test_a_runner_other_than_pytest_is_not_measured(shop: Path, sandbox: Sandbox) -> None:
    lines = cover_tests(shop, sandbox, "npm test", [CHECKOUT])
    assert lines.tests == {} and "not a pytest command" in lines.note


def test_a_broken_run_is_a_note_not_an_error(shop: Path, sandbox: Sandbox) -> None:
    lines = cover_tests(shop, sandbox, "/nonexistent/python -m pytest", [CHECKOUT])
    assert lines.tests == {} and lines.note.startswith("no line coverage")


def test_a_function_counts_when_its_body_ran_not_its_header() -> None:
    ran = {"shop/rates.py": frozenset({TAX_BODY})}
    shared = {"shop/rates.py": frozenset({1, 3, 6, 11})}  # docstring, REGION, the two defs
    spans = covered_spans(ran, shared, {"shop/rates.py": RATES})
    assert spans == {"shop/rates.py": ((1, 1), (3, 3), (6, 8))}
    assert covered_spans({}, shared, {"shop/rates.py": RATES}) == {}


def test_the_lines_a_change_touches_are_counted_in_the_old_text() -> None:
    assert changed_lines(RATES, RATES.replace("return 0.1", "return 0.2")) == {TAX_BODY}
    assert changed_lines(RATES, RATES.replace("    return 0.05\n", "")) == {DUTY_BODY}
    indented = RATES.replace("    return 0.1\n", "    return 0.1\n    # unreachable\n")
    assert changed_lines(RATES, indented) == {TAX_BODY}
    appended = RATES + "\n\ndef vat():\n    return 0.2\n"
    assert changed_lines(RATES, appended) == frozenset()
    assert changed_lines(RATES, None) == frozenset(range(1, 13))


def test_a_change_reaches_a_test_only_through_what_it_ran() -> None:
    spans = {"shop/rates.py": ((6, 8),)}
    assert reaches(spans, ["shop/rates.py"], {"shop/rates.py": {TAX_BODY}})
    assert not reaches(spans, ["shop/rates.py"], {"shop/rates.py": {DUTY_BODY}})
    assert not reaches(spans, ["shop/cart.py"], {"shop/cart.py": {5}})
    assert reaches(spans, ["shop/rates.py"], None)  # lines unknown: the file decides


def _linked(shop: Path, sandbox: Sandbox, task: str) -> tuple[Baseline, Criterion]:
    baseline = take_baseline(shop, sandbox, test_cmd=PYTEST)
    criterion = decide(baseline, task, baseline.texts, user_test_cmd=None)
    return baseline, link_by_coverage(criterion, baseline, sandbox)


def test_the_failing_tests_that_ran_a_touched_function_become_targets(
    shop: Path, sandbox: Sandbox
) -> None:
    baseline, criterion = _linked(shop, sandbox, "Orders are undercharged.")
    assert criterion.targets == frozenset()
    assert set(criterion.covered) == {CHECKOUT, EMPTY, INVENTORY}
    (shop / "shop" / "rates.py").write_text(RATES.replace("return 0.1", "return 0.1  # vat"))
    changed = changed_in(baseline, shop, ["shop/rates.py"])
    targets = criterion.targets_for(["shop/rates.py"], changed)
    assert targets == {CHECKOUT, EMPTY}
    verdict = evaluate(criterion, baseline.tests, ["shop/rates.py"], _never, changed)
    assert verdict is not None and not verdict.met and verdict.remaining == [EMPTY, CHECKOUT]


def test_a_change_to_a_function_no_failing_test_ran_adds_no_target(
    shop: Path, sandbox: Sandbox
) -> None:
    baseline, criterion = _linked(shop, sandbox, "Orders are undercharged.")
    (shop / "shop" / "rates.py").write_text(RATES.replace("return 0.05", "return 0.06"))
    changed = changed_in(baseline, shop, ["shop/rates.py"])
    assert criterion.targets_for(["shop/rates.py"], changed) == frozenset()


def test_only_the_failing_tests_the_task_does_not_name_are_measured(
    shop: Path, sandbox: Sandbox
) -> None:
    _, criterion = _linked(shop, sandbox, "checkout() adds too little tax")
    assert criterion.targets == {CHECKOUT, EMPTY}  # test_cart.py imports shop/cart.py
    assert set(criterion.covered) == {INVENTORY}


def _never(cmd: str) -> tuple[int | None, str]:
    raise AssertionError(f"no command should run: {cmd}")
