"""Prices and discounts."""


def apply_discount(price: float, percent: float) -> float:
    """Return the price after taking ``percent`` (0-100) off it."""
    if not 0 <= percent <= 100:
        raise ValueError("percent must be between 0 and 100")
    return price * percent / 100


def total(prices: list[float]) -> float:
    """Sum of the prices, rounded to cents."""
    return round(sum(prices), 2)
