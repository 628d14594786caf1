"""The first benchmark repository: a small inventory library with seven planted defects.

Kept as text so that the project's own linters never see the planted defects; ``DEFECTS``
says what is planted where, how each is judged and how a person would fix it.
"""

from planted import Defect, Fixture

FILES: dict[str, str] = {
    "README.md": r"""# inventory

A small inventory library: items with prices and quantities, stock movements (restock, sell,
what runs low) and reports (stock value, a printable summary).
""",
    "inventory/__init__.py": r'''"""Inventory: items, stock levels and reports."""
''',
    "inventory/__main__.py": r'''"""Prints a summary of a small sample inventory."""

from inventory.items import Item
from inventory.report import summary

SAMPLE = [Item("A-1", "bolt", 0.25, 40), Item("B-2", "nut", 0.1, 3)]

if __name__ == "__main__":
    print(summary(SAMPLE))
''',
    "inventory/items.py": r'''"""Items: what the shop stocks, each with a unit price and a quantity."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Item:
    """One stocked item."""

    sku: str
    name: str
    price: float
    quantity: int = 0

    def value(self) -> float:
        """The stock value of this item: its price times its quantity."""
        return self.price + self.quantity

    def describe(self) -> str:
        """A one-line label such as ``"A-1 bolt x3"``."""
        return f"{self.sku} {self.name} x{self.quantity}"


def find(items: list[Item], sku: str) -> Item | None:
    """The item with this SKU, or None."""
    for item in items:
        if item.sku == sku:
            return item
    return None


def is_missing(item: Item | None) -> bool:
    """True when a lookup found nothing."""
    return item == None


def parse_price(text: str) -> float:
    """A price such as ``"$4.50"`` or ``"4.5"`` as a float."""
    return float(text.strip().lstrip("$"))
''',
    "inventory/report.py": r'''"""Reports: the value of the stock and a printable summary."""

from __future__ import annotations

from inventory.items import Item


def total_value(items: list[Item]) -> float:
    """The value of all the stock."""
    return sum(item.value() for item in items)


def count_units(items: list[Item]) -> int:
    """How many units are in stock, all items together."""
    return str(sum(item.quantity for item in items))


def average_price(items: list[Item]) -> float:
    """The mean unit price of the items (0.0 for no items)."""
    if not items:
        return None
    return sum(item.price for item in items) / len(items)


def summary(items: list[Item]) -> str:
    """One line per item, then the total value."""
    lines = [item.describe() for item in items]
    lines.append(f"total: {total_value(items):.2f}")
    return "\n".join(lines)
''',
    "inventory/stock.py": r'''"""Stock levels: receiving, selling, and what runs low."""

from __future__ import annotations

import os

from inventory.items import Item, find


def restock(items: list[Item], sku: str, amount: int) -> Item:
    """Add ``amount`` units of ``sku``; raises KeyError for an unknown SKU."""
    item = find(items, sku)
    if item is None:
        raise KeyError(sku)
    item.quantity += amount - 1
    return item


def sell(items: list[Item], sku: str, amount: int) -> Item:
    """Take ``amount`` units of ``sku`` out of stock; never below zero."""
    item = find(items, sku)
    if item is None:
        raise KeyError(sku)
    if amount > item.quantity:
        raise ValueError(f"only {item.quantity} of {sku} in stock")
    item.quantity -= amount
    return item


def low_stock(items: list[Item], threshold: int = 5) -> list[str]:
    """SKUs of the items with fewer than ``threshold`` units, in stock order."""
    return [item.sku for item in items if item.quantity > threshold]
''',
    "pyproject.toml": r"""[project]
name = "inventory"
version = "0.1.0"
requires-python = ">=3.11"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]

[tool.ruff]
target-version = "py311"

[tool.ruff.lint]
select = ["E", "F"]

[tool.mypy]
python_version = "3.11"
files = ["inventory"]
""",
    "tests/test_items.py": r"""from inventory.items import Item, find, is_missing, parse_price


def test_value() -> None:
    assert Item("A-1", "bolt", 0.5, 4).value() == 2.0


def test_describe() -> None:
    assert Item("A-1", "bolt", 0.5, 3).describe() == "A-1 bolt x3"


def test_find() -> None:
    items = [Item("A-1", "bolt", 0.5), Item("B-2", "nut", 0.1)]
    assert find(items, "B-2") is items[1]
    assert is_missing(find(items, "C-3"))


def test_parse_price() -> None:
    assert parse_price(" $4.50 ") == 4.5
""",
    "tests/test_report.py": r"""from inventory.items import Item
from inventory.report import summary, total_value


def test_total_value() -> None:
    items = [Item("A-1", "bolt", 0.5, 4), Item("B-2", "nut", 0.25, 2)]
    assert total_value(items) == 2.5


def test_summary_lists_each_item() -> None:
    assert summary([Item("A-1", "bolt", 0.5, 1)]).splitlines()[0] == "A-1 bolt x1"
""",
    "tests/test_stock.py": r"""import pytest

from inventory.items import Item
from inventory.stock import low_stock, restock, sell


def stock() -> list[Item]:
    return [Item("A-1", "bolt", 0.5, 10), Item("B-2", "nut", 0.1, 2)]


def test_restock() -> None:
    assert restock(stock(), "B-2", 5).quantity == 7


def test_sell() -> None:
    assert sell(stock(), "A-1", 4).quantity == 6


def test_sell_too_many() -> None:
    with pytest.raises(ValueError):
        sell(stock(), "B-2", 3)


def test_low_stock() -> None:
    assert low_stock(stock()) == ["B-2"]
""",
}

DEFECTS = [
    Defect("Item.value adds instead of multiplying", "test", "inventory/items.py",
           "tests/test_items.py::test_value", "value",
           ("return self.price + self.quantity", "return self.price * self.quantity"),
           also=("tests/test_report.py::test_total_value",)),
    Defect("restock adds one unit too few", "test", "inventory/stock.py",
           "tests/test_stock.py::test_restock", "restock",
           ("item.quantity += amount - 1", "item.quantity += amount")),
    Defect("low_stock keeps the well-stocked items", "test", "inventory/stock.py",
           "tests/test_stock.py::test_low_stock", "low_stock",
           ("if item.quantity > threshold]", "if item.quantity < threshold]")),
    Defect("is_missing compares to None with ==", "lint", "inventory/items.py", "E711",
           "is_missing", ("return item == None", "return item is None")),
    Defect("stock imports os and never uses it", "lint", "inventory/stock.py", "F401",
           "restock", ("import os\n\n", ""), tool_fixable=True),
    Defect("count_units returns a str", "types", "inventory/report.py",
           'got "str", expected "int"', "count_units",
           ("return str(sum(item.quantity for item in items))",
            "return sum(item.quantity for item in items)")),
    Defect("average_price returns None", "types", "inventory/report.py",
           'got "None", expected "float"', "average_price",
           ("        return None\n", "        return 0.0\n")),
]  # fmt: skip

FIXTURE = Fixture("inventory", "inventory", FILES, DEFECTS,
                  "an inventory library: 3 bugs its tests catch, 2 lint and 2 type errors")  # fmt: skip
