"""Small real git repositories for the index tests."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path


def write_files(root: Path, files: Mapping[str, str], *, age_seconds: float = 60.0) -> None:
    """Write ``files`` under ``root`` with mtimes in the past (as if edited a while ago)."""
    stamp = time.time() - age_seconds
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (stamp, stamp))


def make_repo(root: Path, files: Mapping[str, str]) -> Path:
    """A committed git repository holding ``files``."""
    root.mkdir(parents=True, exist_ok=True)
    write_files(root, files)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "init"]):
        subprocess.run(cmd, cwd=root, check=True, env=env, capture_output=True)
    return root


SHOP = {
    "shop/__init__.py": "",
    "shop/pricing.py": (
        "from shop.money import round_cents\n\n\n"
        "def apply_discount(price: float, percent: float) -> float:\n"
        '    """Price after a percentage discount."""\n'
        "    return round_cents(price * (1 - percent))\n\n\n"
        "def total_with_tax(prices: list[float], tax_rate: float) -> float:\n"
        "    return round_cents(sum(prices) * (1 + tax_rate))\n"
    ),
    "shop/money.py": (
        "def round_cents(amount: float) -> float:\n"
        "    return round(amount, 2)\n\n\n"
        "def format_money(amount: float, currency: str = 'EUR') -> str:\n"
        "    return f'{round_cents(amount):.2f} {currency}'\n"
    ),
    "shop/cart.py": (
        "from shop.money import format_money\n"
        "from shop.pricing import apply_discount, total_with_tax\n\n\n"
        "class Cart:\n"
        "    def __init__(self) -> None:\n"
        "        self.items: list[float] = []\n\n"
        "    def add(self, price: float) -> None:\n"
        "        self.items.append(price)\n\n"
        "    def checkout(self, coupon_percent: float = 0.0) -> str:\n"
        "        prices = [apply_discount(p, coupon_percent) for p in self.items]\n"
        "        return format_money(total_with_tax(prices, 0.2))\n"
    ),
    "shop/inventory.py": (
        "class Inventory:\n"
        "    def __init__(self) -> None:\n"
        "        self.stock: dict[str, int] = {}\n\n"
        "    def restock(self, sku: str, count: int) -> None:\n"
        "        self.stock[sku] = self.stock.get(sku, 0) + count\n\n"
        "    def reserve(self, sku: str, count: int) -> bool:\n"
        "        if self.stock.get(sku, 0) < count:\n"
        "            return False\n"
        "        self.stock[sku] -= count\n"
        "        return True\n"
    ),
    "tests/test_cart.py": (
        "from shop.cart import Cart\n\n\n"
        "def test_checkout() -> None:\n"
        "    cart = Cart()\n"
        "    cart.add(10.0)\n"
        "    assert cart.checkout() == '12.00 EUR'\n"
    ),
    "README.md": "# shop\nA tiny shop used by the index tests.\n",
}
