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


def pointed_lines(report: str, texts: Mapping[str, str | None]) -> list[str]:
    """``path:line: `code` `` for each line of ``texts`` (path → the changed file's text) that
    ``report`` names, first mention first, at most :data:`MAX_LINES`; blank lines skipped."""
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
        if 1 <= number <= len(lines) and lines[number - 1].strip():
            out.append(f"{path}:{number}: `{lines[number - 1].strip()}`")
        if len(out) == MAX_LINES:
            break
    return out


def where(report: str, texts: Mapping[str, str | None]) -> str:
    """The heading and the quoted lines, or "" when the report points at none of them."""
    found = pointed_lines(report, texts)
    return "\n".join([HEADING, *(f"- {x}" for x in found)]) if found else ""


def rejection_report(
    summary: str, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> tuple[str, list[str]]:
    """A rejected change's report (``summary`` and the lines of the change its errors point
    at), and a note for each definition the change deleted that the code still uses (or the
    Rust ``mod tests;`` that compiled the task's tests)."""
    report = "\n".join(x for x in (summary, where(summary, after)) if x)
    lost = lost_definitions(summary, before, after) + lost_test_modules(summary, before, after)
    return report, lost
