"""Which of an iteration's rejected candidates came closest: the next iteration goes on from
it (its conversation and working copy)."""

from __future__ import annotations

from dataclasses import dataclass

from patchwright.agent.checker import Check
from patchwright.llm import Message


@dataclass
class Tried:
    """A candidate that was not kept: how far it got, and what it left in the conversation."""

    rank: tuple[int, int]
    messages: list[Message]
    state: dict[str, str | None]


def rank(check: Check) -> tuple[int, int]:
    """Gates passed beats gates failed; then fewer tests left, or fewer new problems."""
    if check.gates_ok and check.verdict is not None:
        return (2, -len(check.verdict.remaining))  # no regression; the task not done yet
    return (1, -sum(len(r.new_problems) for r in check.results))
