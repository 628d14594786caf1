"""The one function a failing test convicts: the frame its traceback passes through in the
target, else the one function of the target its body names — or none, and the prompt asks
for whole files."""

from __future__ import annotations

from patchwright.agent.relations.suspects import Suspect, find_suspects, pick
from patchwright.verify import TestRun
from patchwright.verify.testmodel import TestCase

ITEMS = '''"""Items."""

from dataclasses import dataclass


@dataclass
class Item:
    price: float
    quantity: int

    def value(self) -> float:
        """Its price times its quantity."""
        return self.price + self.quantity


def ratio(a: int, b: int) -> float:
    return a / b


def both(a: int, b: int) -> float:
    return ratio(a, b) + ratio(b, a)
'''
TESTS = """from shop.items import Item, both, ratio


def test_value() -> None:
    assert Item(0.5, 4).value() == 2.0


def test_ratio_of_zero() -> None:
    assert ratio(1, 0) == 0


def test_both() -> None:
    assert both(1, 2) == ratio(1, 2) + 2
"""
TEXTS = {"shop/items.py": ITEMS, "tests/test_items.py": TESTS}


def _run(*cases: TestCase) -> TestRun:
    return TestRun("pytest", 1, "", {c.id: c for c in cases}, per_test=True)


def _case(name: str, message: str, detail: str = "") -> TestCase:
    return TestCase(f"tests/test_items.py::{name}", "failed", "tests/test_items.py",
                    message=message, detail=detail)  # fmt: skip


def test_a_test_failing_in_its_own_assertion_convicts_the_method_its_body_names() -> None:
    case = _case(
        "test_value",
        "AssertionError: assert 4.5 == 2.0",
        "E       AssertionError: assert 4.5 == 2.0\nE        +  where 4.5 = value()",
    )

    [suspect] = find_suspects(_run(case), [case.id], "shop/items.py", TEXTS)

    assert suspect.name == "value"
    assert suspect.code.startswith("def value(self) -> float:")  # dedented out of its class
    assert suspect.code.endswith("return self.price + self.quantity")
    assert suspect.test_code == "def test_value() -> None:\n    assert Item(0.5, 4).value() == 2.0"
    assert suspect.says.splitlines() == ["E       AssertionError: assert 4.5 == 2.0",
                                         "E        +  where 4.5 = value()"]  # fmt: skip


def test_a_crash_convicts_the_function_its_traceback_passes_through() -> None:
    detail = ("tests/test_items.py:9: in test_ratio_of_zero\n    assert ratio(1, 0) == 0\n"
              "shop/items.py:17: in ratio\n    return a / b\nE   ZeroDivisionError: division by zero")  # fmt: skip
    case = _case("test_ratio_of_zero", "ZeroDivisionError: division by zero", detail)

    [suspect] = find_suspects(_run(case), [case.id], "shop/items.py", TEXTS)

    assert suspect.name == "ratio"
    assert suspect.says.splitlines()[0] == "E   ZeroDivisionError: division by zero"


def test_two_candidates_and_no_frame_convict_nothing() -> None:
    case = _case("test_both", "AssertionError: assert 2.5 == 2.5000001")
    assert find_suspects(_run(case), [case.id], "shop/items.py", TEXTS) == []
    assert find_suspects(_run(case), [case.id], "shop/other.py", TEXTS) == []


def test_a_suspect_that_failed_is_passed_over_until_every_one_has() -> None:
    first, second = Suspect("value", "def value(): ..."), Suspect("ratio", "def ratio(): ...")
    assert pick([first, second], []) is first
    assert pick([first, second], ["value"]) is second
    assert pick([first, second], ["value", "ratio"]) is first
    assert pick([], []) is None


HEF_SOLUTION = '''def below_zero(operations: list[int]) -> bool:
    """True when the running balance ever falls below zero."""
    balance = 0
    for op in operations:
        balance += op
        if balance == 0:
            return True
    return False
'''

HEF_TEST = """from solution import *


def check(below_zero):
    assert below_zero([]) == False
    assert below_zero([1, 2, -3, 1, 2, -3]) == False

check(below_zero)

def test_check():
    check(below_zero)
"""


def test_a_module_that_fails_as_it_is_collected_convicts_what_its_checking_function_names() -> None:
    detail = ("collection failure\ntest_solution.py:8: in <module>\n"
              "test_solution.py:6: in check\nE   assert True == False")  # fmt: skip
    case = TestCase("test_solution.py", "error", "test_solution.py", message="collection failure",
                    detail=detail)  # fmt: skip
    texts = {"solution.py": HEF_SOLUTION, "test_solution.py": HEF_TEST}

    [suspect] = find_suspects(_run(case), [case.id], "solution.py", texts)

    assert (suspect.name, suspect.path) == ("below_zero", "solution.py")
    assert suspect.test_code.startswith("def check(below_zero):")
    assert suspect.says == "collection failure\nE   assert True == False"
