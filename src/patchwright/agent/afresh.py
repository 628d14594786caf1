"""Where a fresh start goes on from, and what it asks.

A repair asked in the conversation that holds a failed change tends to draw that change
again (kept records: 28 of 46 such repairs repeated one), so the solver starts a new
conversation: the first request, restated, and what failed. It goes on from the stubs or the
bug as they were — unless a rejected change made progress: one that passed its gates and
left fewer of the task's tests failing than failed before any change. Then the fresh start
goes on from the closest such change, its files shown as they now read, told what still
fails with them (Exercism bank-account and binary-search-tree: a first change left 2 and 1
tests failing, and each later fresh start from the stubs did worse).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from patchwright.agent.checker import Check
from patchwright.agent.context import fence_lang
from patchwright.agent.prompts import render


@dataclass(frozen=True)
class Closest:
    """The rejected change that left the fewest of the task's tests failing, fewer than
    before any change."""

    left: int  # tests still failing with it
    state: dict[str, str | None]  # the working copy as it left it
    files: Mapping[str, str]  # the files it touched, as it left them
    report: str  # what still fails with it


def tests_left(check: Check, failing_before: int) -> int | None:
    """How many tests still fail after a change that passed its gates, when that is fewer
    than the ``failing_before`` any change and more than none; else None (no progress)."""
    if not check.gates_ok or check.verdict is None:
        return None
    left = len(check.verdict.remaining)
    return left if 0 < left < failing_before else None


def nearer(
    closest: Closest | None,
    check: Check,
    failing_before: int,
    state: dict[str, str | None],
    report: str,
) -> Closest | None:
    """The closest change after a rejected one (``check``; ``state``, the working copy it
    left, the files it touched): that one when it left fewer tests failing."""
    left = tests_left(check, failing_before)
    if left is None or (closest is not None and closest.left <= left):
        return closest
    files = {path: text for path, text in state.items() if text is not None}
    return Closest(left, dict(state), files, report)


def afresh_request(
    request: str, closest: Closest | None, failure: str, *, fmt: str, definition: str = ""
) -> str:
    """The fresh start's request: ``request`` (the first one, restated), then the closest
    change's files and what still fails with them — or, with none, the last ``failure``."""
    files = [
        {"path": path, "lang": fence_lang(path), "text": text.rstrip("\n")}
        for path, text in (closest.files.items() if closest else ())
    ]
    return render(
        "afresh",
        request=request,
        files=files,
        failures=closest.report if closest else failure,
        fmt=fmt,
        definition=definition,
    )
