"""The read-only tools that stand on the code index — search, symbols, locate — over a real
index of a real repository: what the model gets back, and a bad query as an observation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.agent.checker import Check
from patchwright.agent.roles import toolbox
from patchwright.agent.tools import Observation, Workbench, builtin_tools
from patchwright.agent.working_copy import WorkingCopy
from patchwright.index import RepoIndex
from patchwright.llm import ToolCall
from patchwright.sandbox import Sandbox

BILLING = '''"""Invoices."""


class Invoice:
    def __init__(self, lines):
        self.lines = lines

    def total(self):
        return sum(price * qty for price, qty in self.lines)


def compute_invoice_total(lines, vat_rate):
    """The invoice total with VAT added."""
    return Invoice(lines).total() * (1 + vat_rate)
'''
Run = Callable[..., Observation]
TAX = 'def vat_rate(country):\n    """VAT by country."""\n    return {"fr": 0.2, "de": 0.19}[country]\n'


@pytest.fixture
def call(tmp_path: Path) -> Run:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "billing.py").write_text(BILLING)
    (tmp_path / "shop" / "tax.py").write_text(TAX)
    index = RepoIndex(tmp_path)
    index.update()
    working = WorkingCopy(["shop/billing.py", "shop/tax.py"], lambda p: None, lambda p: None)
    bench = Workbench(tmp_path, working, Sandbox(tmp_path), lambda t: Check(), index=lambda: index)
    box = toolbox("reviewer", builtin_tools(bench))

    def run(name: str, **arguments: object) -> Observation:
        return box.call(ToolCall("c", name, dict(arguments)))

    return run


def test_search_finds_exact_text_with_its_line(call: Run) -> None:
    found = call("search", query="vat_rate")
    lines = found.text.splitlines()
    assert "shop/tax.py:1: def vat_rate(country):" in lines
    assert any(line.startswith("shop/billing.py:12:") for line in lines)


def test_a_search_that_cannot_run_is_an_observation(call: Run) -> None:
    bad = call("search", query="def (", mode="regex")
    assert not bad.ok and bad.text.startswith("search:")
    unknown = call("search", query="x", mode="telepathy")
    assert (
        not unknown.ok and "mode must be one of auto, exact, regex, bm25, semantic" in unknown.text
    )
    assert call("search", query="no such words anywhere", mode="exact").text == (
        "nothing found for 'no such words anywhere'"
    )


def test_symbols_outline_a_file_with_line_spans(call: Run) -> None:
    outline = call("symbols", path="shop/billing.py").text.splitlines()
    assert outline[0] == "4-9 class shop.billing.Invoice: class Invoice"
    assert any(line.startswith("8-9 method shop.billing.Invoice.total:") for line in outline)
    assert outline[-1].startswith("12-14 function shop.billing.compute_invoice_total:")
    assert call("symbols", path="README.md").text == "no definitions found in README.md"


def test_locate_ranks_the_files_and_functions_a_problem_is_about(call: Run) -> None:
    found = call("locate", text="the invoice total is wrong when VAT is added").text
    files, functions = found.split("\nFunctions:\n")
    assert files.splitlines()[1].startswith("shop/billing.py")
    assert "compute_invoice_total" in functions.splitlines()[0]
