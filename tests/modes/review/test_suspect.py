"""The one function a failing test convicts: the frame its traceback passes through in the
target, else the one function of the target its body names — or none, and the proposal asks
for the whole file."""

from __future__ import annotations

from patchwright.modes.review.findings import Finding
from patchwright.modes.review.suspect import Suspect, find_flagged, find_suspects, pick
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


def test_lint_and_type_findings_convict_the_functions_around_their_lines() -> None:
    found = [Finding("shop/items.py", 17, "types", "return-value", "got int"),
             Finding("shop/items.py", 13, "lint", "E711", "== None"),
             Finding("shop/items.py", 13, "types", "operator", "bad operand"),
             Finding("shop/items.py", 8, "types", "misc", "outside any function")]  # fmt: skip

    suspects = find_flagged(found, "types", ITEMS)

    assert [(s.name, len(s.flagged)) for s in suspects] == [("value", 1), ("ratio", 1)]
    assert suspects[0].flagged == ("shop/items.py:13: [types operator] bad operand",)


def test_a_suspect_that_failed_is_passed_over_until_every_one_has() -> None:
    first, second = Suspect("value", "def value(): ..."), Suspect("ratio", "def ratio(): ...")
    assert pick([first, second], []) is first
    assert pick([first, second], ["value"]) is second
    assert pick([first, second], ["value", "ratio"]) is first
    assert pick([], []) is None
