import pytest

from inventory.pricing import apply_discount, total


def test_quarter_off() -> None:
    assert apply_discount(200.0, 25) == 150.0


def test_no_discount_keeps_price() -> None:
    assert apply_discount(80.0, 0) == 80.0


def test_percent_out_of_range() -> None:
    with pytest.raises(ValueError):
        apply_discount(10.0, 120)


def test_total_rounds_to_cents() -> None:
    assert total([0.1, 0.2]) == 0.3
