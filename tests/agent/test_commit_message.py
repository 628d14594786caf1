"""Commit messages: the model's line when it is conventional, a safe fallback otherwise."""

from __future__ import annotations

from patchwright.agent.commit_message import clean_message, fallback_message


def test_conventional_line_is_extracted_from_chatter() -> None:
    reply = "Sure! Here it is:\n```\nfix(pricing): return the discounted price\n```"
    assert clean_message(reply) == "fix(pricing): return the discounted price"


def test_non_conventional_reply_is_rejected() -> None:
    assert clean_message("I changed the discount code.") is None


def test_fallback_is_conventional_and_short() -> None:
    message = fallback_message("make   apply_discount return the price after the discount " * 3)
    assert message.startswith("fix: make apply_discount")
    assert len(message) <= 72


def test_long_lines_are_cut_at_a_word_boundary() -> None:
    line = "fix(inventory/pricing.py): apply_discount in inventory/pricing.py returns the price"
    cleaned = clean_message(line)
    assert cleaned is not None and len(cleaned) <= 72
    assert line.startswith(cleaned) and line[len(cleaned)] == " "
