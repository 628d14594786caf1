"""Which failing tests a task names: names compare in any case and form (``Checkout`` ~
``checkout``, ``totals`` ~ ``total``, ``CheckoutTotal`` ~ ``checkout_total`` ~
``test_checkout_totals``), while common words never make a test a target."""

from __future__ import annotations

from patchwright.agent.relations.related_tests import related_tests, task_pointers
from patchwright.agent.relations.word_forms import contains, parts, stem
from patchwright.verify.testrun import TestCase, TestRun

TEXTS = {
    "shop/cart.py": "from shop.rates import tax_rate\n\n\ndef checkout(prices):\n    return 0\n",
    "shop/rates.py": "def tax_rate():\n    return 0.1\n",
    "shop/inventory.py": "def count(items):\n    return len(items) - 1\n",
    "shop/report.py": "class CheckoutTotal:\n    pass\n\n\ndef order_entries():\n    return []\n",
}
CHECKOUT = "tests/test_cart.py::test_checkout"
TOTALS = "tests/test_cart.py::test_checkout_totals"
INVENTORY = "tests/test_inventory.py::test_inventory_count"


def failing(*ids: str) -> TestRun:
    cases = {i: TestCase(i, "failed", i.split("::")[0], 3, "assert 0 == 1") for i in ids}
    return TestRun("pytest -q", 1, "", cases, per_test=True)


def test_words_are_stemmed_so_forms_of_one_word_compare_equal() -> None:
    assert stem("Totals") == stem("total") == "total"
    assert stem("entries") == stem("entry") == "entry"
    assert stem("taxes") == stem("tax") == "tax"
    assert stem("pricing") == stem("prices") == stem("price")
    assert stem("running") == stem("run") and stem("stopped") == stem("stop")
    assert stem("status") == "status" and stem("class") == "class"


def test_names_split_at_underscores_and_camel_humps() -> None:
    assert parts("CheckoutTotal") == parts("checkout_total") == ("checkout", "total")
    assert parts("test_checkout_totals") == ("test", "checkout", "total")
    assert parts("HTTPServerError") == ("http", "server", "error")
    assert contains(("checkout", "total"), ("checkout",))
    assert not contains(("checkout",), ("checkout", "total"))


def test_a_capitalised_word_names_the_function_and_its_test() -> None:
    task = "Checkout totals are too low: a 100 order should cost 120 with tax."
    assert "checkout" in task_pointers(task, TEXTS).identifiers
    assert related_tests(failing(CHECKOUT, INVENTORY), task, TEXTS) == {CHECKOUT}
    assert related_tests(failing(CHECKOUT, INVENTORY), task.lower(), TEXTS) == {CHECKOUT}


def test_a_plural_in_the_task_names_the_singular_and_plural_test_names() -> None:
    task = "The checkout total is too low."
    assert related_tests(failing(TOTALS, INVENTORY), task, TEXTS) == {TOTALS}
    plural = "Checkout totals are too low."
    assert related_tests(failing(TOTALS, INVENTORY), plural, TEXTS) == {TOTALS}


def test_camel_case_and_snake_case_spell_the_same_name() -> None:
    assert task_pointers("the checkout totals are off", TEXTS).identifiers >= {"CheckoutTotal"}
    assert task_pointers("CheckoutTotal is off", TEXTS).files == {"shop/report.py"}
    assert "order_entries" in task_pointers("OrderEntries come back empty", TEXTS).identifiers
    run = failing("tests/test_report.py::TestCheckoutTotal::test_rounds", INVENTORY)
    assert related_tests(run, "checkout_total rounds badly", TEXTS) == {
        "tests/test_report.py::TestCheckoutTotal::test_rounds"
    }


def test_an_unrelated_failing_test_is_not_a_target() -> None:
    task = "Checkout totals are too low: a 100 order should cost 120 with tax."
    assert INVENTORY not in related_tests(failing(CHECKOUT, INVENTORY), task, TEXTS)
    run = failing("tests/test_misc.py::test_it_should_work", "tests/test_misc.py::test_fix_bug")
    assert related_tests(run, "Fix the bug: it should work, it is wrong", TEXTS) == set()


def test_every_meaningful_word_of_a_test_name_must_be_in_the_task() -> None:
    run = failing("tests/test_stock.py::test_low_stock", CHECKOUT)
    assert related_tests(run, "Checkout totals are too low.", TEXTS) == {CHECKOUT}
    assert related_tests(run, "Low stock is not reported.", TEXTS) == {
        "tests/test_stock.py::test_low_stock"
    }
