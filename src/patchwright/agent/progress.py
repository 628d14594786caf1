"""Whether a rejected change came close: it made most of the task's failing checks pass and
broke none that passed.

A test that reports each failed check on its own line (Go's testify ``assert``, ``t.Errorf``)
shows progress inside one failing test: ``main_test.go:12: Not equal …`` for each check still
failing. HumanEvalFix Go-58 (``Common`` forgot to sort): the first change left 1 of its 3
failing checks (``expected []int{}, actual []int(nil)``); the one-function retry that
followed started again from the unchanged function, and none of its three replies came that
close again. A change this close is repaired in its own conversation, where the model sees
it; the retry that starts over waits for a change that does not.
"""

from __future__ import annotations

import re

# a check's place at the start of a report line: "    main_test.go:12: Not equal: …"
_POINT = re.compile(r"^[ \t]*([\w./\\-]+\.\w+):(\d+):", re.M)
# a report's item for a build that failed: its lines are compile errors, not checks
_BUILD = re.compile(r"::\[build\]|build failed:")


def failure_points(report: str) -> frozenset[tuple[str, int]]:
    """The ``file:line`` places a failure report starts its lines with, outside the items
    of a failed build (polyglot Go octal: ``build failed: octal_test.go:21: …`` then
    ``octal_test.go:47: …``; a change that dropped the first of those two compile errors was
    told it "made 1 of the 2 failing checks pass" while the build still failed)."""
    items = re.split(r"\n(?=\S)", report)
    checks = "\n".join(item for item in items if not _BUILD.search(item))
    return frozenset((m[1], int(m[2])) for m in _POINT.finditer(checks))


def closing_in(before: str, after: str) -> tuple[int, int] | None:
    """``(fixed, failing)`` when ``after`` (a rejected change's failure report) still fails at
    no more than half of the ``failing`` places ``before`` (the baseline's) named, all among
    them; else None."""
    old, new = failure_points(before), failure_points(after)
    if len(old) < 2 or not new or not new < old or 2 * len(new) > len(old):
        return None
    return len(old) - len(new), len(old)
