"""Where a failing test now stops, against where it stopped before the change.

A Rust ``assert_eq!`` or a Python ``assert`` ends its test at the first check that fails, so
the line a failure points at says how far the test got. When the one failing test stops at
an *earlier* line than it did before the change, the change broke a check the code got
right (HumanEvalFix Rust-39: the rewrite failed ``prime_fib(1) == 2``, which the code as it
was passed, and the next reply failed it again); when it stops at a *later* one, the change
got further, and what it fixed is worth keeping (Rust-31). The repair prompt says which.
Only for Rust and Python tests: Go's ``t.Errorf``, testify's ``assert`` and JavaScript's
``console.assert`` (HumanEvalFix's) report a failed check and go on, so a test that points at
another line may have fixed one check and broken another (polyglot Go zebra-puzzle)."""

from __future__ import annotations

import re

from patchwright.agent.pointed_lines import TEST_HEADING

_POINTED = re.compile(r"^- (?P<path>[^\s:]+):(?P<line>\d+): `(?P<code>.*)`$")
_FAILED = re.compile(r"^- failed: (\S+)", re.M)


_PYTEST_AT = re.compile(r"^\s+(?P<path>[\w./-]+\.py):(?P<line>\d+): \w+\n\s*> (?P<code>.+)$", re.M)


def _stop(report: str) -> tuple[str, str, int, str] | None:
    """``(test id, test file, line, code)`` where ``report``'s one failing test stopped —
    when it names one failing test and one line of the tests (pointed at after the report,
    or in pytest's ``test_x.py:6: AssertionError`` and the ``> assert …`` under it); else
    None."""
    tests = set(_FAILED.findall(report))
    if len(tests) != 1:
        return None
    at = report.find(TEST_HEADING)
    points: list[re.Match[str]] = []
    if at >= 0:
        for line in report[at + len(TEST_HEADING) :].splitlines()[1:]:
            match = _POINTED.match(line)
            if match is None:
                break
            points.append(match)
    else:
        points = list(_PYTEST_AT.finditer(report))
    if len(points) != 1:
        return None
    point = points[0]
    return tests.pop(), point["path"], int(point["line"]), point["code"].strip()


def _moved(before: str, after: str) -> tuple[str, int, int, str] | None:
    """``(test file, line before, line now, code now)`` when the one failing test of a Rust
    or Python report stops at another line of the same test after the change than before."""
    old, new = _stop(before), _stop(after)
    if old is None or new is None or old[:2] != new[:2] or old[2] == new[2]:
        return None
    if not old[1].endswith((".rs", ".py")):  # a check that fails and goes on: no order
        return None
    return old[1], old[2], new[2], new[3]


def stopped_later(before: str, after: str) -> int | None:
    """The line the failing test stops at after the change, when it is a later one than
    before it (the change got further); else None."""
    moved = _moved(before, after)
    return moved[2] if moved is not None and moved[2] > moved[1] else None


def check_moved(before: str, after: str) -> str:
    """A sentence on how the failing test's stopping place moved from ``before`` (the report
    before any change) to ``after`` (the rejected change's); empty when it did not, or when
    either report is not one failing test stopped at one line."""
    moved = _moved(before, after)
    if moved is None:
        return ""
    path, was, now, code = moved
    if now < was:
        return (f"Your change broke `{code}` ({path}:{now}): the code as it was passed that "
                f"check (the test stopped at line {was} before the change). Keep what the "
                "code did for it.")  # fmt: skip
    return (f"Your change got further: the checks above {path}:{now} now pass (before the "
            f"change the test stopped at line {was}). Keep what made them pass, and fix what "
            f"fails at line {now}.")  # fmt: skip
