"""The lines of a rejected change that its errors point at, quoted.

A compiler says ``main.go:28: invalid operation: … (mismatched types float64 and int)``; a
small model cannot count to line 28 of the file it sent, and in a new conversation (a fresh
start after a repeated change) it does not have that file at all. Quoting the line — ``main.go:28:
`return sum(numList) / len(numbers)` `` — shows what the error is about (HumanEvalFix Go-4: a
fix one conversion short, lost in the fresh start that followed it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from patchwright.agent.lost_names import lost_definitions, lost_test_modules

_REF = re.compile(
    r"(?P<path>[\w./-]+\.\w+):(?P<line>\d+)"  # go, rustc, ruff, mypy, tsc, node: path:line
    r"|File \"(?P<pypath>[^\"]+)\", line (?P<pyline>\d+)"  # a Python traceback
)
MAX_LINES = 4
HEADING = "Where those errors point in the change:"

TEST_HEADING = "Where the test run points in the tests:"


def pointed_lines(
    report: str, texts: Mapping[str, str | None], unquoted: bool = False
) -> list[str]:
    """``path:line: `code` `` for each line of ``texts`` (path → a file's text) that ``report``
    names, first mention first, at most :data:`MAX_LINES`; blank lines skipped, and with
    ``unquoted`` those whose code the report already shows (pytest prints the failing assert;
    node's ``console.assert failed … at main.test.js:10:11`` does not)."""
    out: list[str] = []
    seen: set[tuple[str, int]] = set()
    for match in _REF.finditer(report):
        path = match.group("path") or match.group("pypath")
        number = int(match.group("line") or match.group("pyline"))
        text = texts.get(path.removeprefix("./"))
        if text is None or (path, number) in seen:
            continue
        seen.add((path, number))
        lines = text.splitlines()
        code = lines[number - 1].strip() if 1 <= number <= len(lines) else ""
        if code and not (unquoted and code in report):
            out.append(f"{path}:{number}: `{code}`")
        if len(out) == MAX_LINES:
            break
    return out


def _listed(heading: str, found: list[str]) -> str:
    return "\n".join([heading, *(f"- {x}" for x in found)]) if found else ""


def where(report: str, texts: Mapping[str, str | None]) -> str:
    """The heading and the quoted lines, or "" when the report points at none of them."""
    return _listed(HEADING, pointed_lines(report, texts))


def where_in_tests(report: str, tests: Mapping[str, str | None]) -> str:
    """The lines of the read-only ``tests`` (path → text) that ``report`` points at and does
    not show already, under their heading; "" when there are none. A small model cannot count
    to line 10 of a test file: HumanEvalFix JavaScript's ``console.assert failed`` names only
    ``main.test.js:10:11``, which is ``console.assert(makePalindrome('xyz') === 'xyzyx')``."""
    return _listed(TEST_HEADING, pointed_lines(report, tests, unquoted=True))


def rejection_report(
    summary: str,
    before: Mapping[str, str | None],
    after: Mapping[str, str | None],
    tests: Mapping[str, str | None] | None = None,
) -> tuple[str, list[str]]:
    """A rejected change's report (``summary``, the lines of the change its errors point at
    and those of the read-only ``tests``), and a note for each definition the change deleted
    that the code still uses (or the Rust ``mod tests;`` that compiled the task's tests)."""
    pointed = (where(summary, after), where_in_tests(summary, tests or {}))
    report = "\n".join(x for x in (summary, *pointed) if x)
    lost = lost_definitions(summary, before, after) + lost_test_modules(summary, before, after)
    return report, lost
