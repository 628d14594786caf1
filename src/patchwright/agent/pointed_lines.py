"""The lines of a rejected change that its errors point at, quoted.

A compiler says ``main.go:28: invalid operation: … (mismatched types float64 and int)``; a
small model cannot count to line 28 of the file it sent, and in a new conversation (a fresh
start after a repeated change) it does not have that file at all. Quoting the line — ``main.go:28:
`return sum(numList) / len(numbers)` `` — shows what the error is about (HumanEvalFix Go-4: a
fix one conversion short, lost in the fresh start that followed it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from patchwright.agent.lang_slips import slip_notes
from patchwright.agent.lost_names import lost_definitions, lost_test_modules
from patchwright.agent.value_origin import where_written
from patchwright.verify.runners.value_diff import blank_strings, bracket_depth

_REF = re.compile(
    r"(?P<path>[\w./-]+\.\w+):(?P<line>\d+)"  # go, rustc, ruff, mypy, tsc, node: path:line
    r"|File \"(?P<pypath>[^\"]+)\", line (?P<pyline>\d+)"  # a Python traceback
)
MAX_LINES = 4
HEADING = "Where those errors point in the change:"

TEST_HEADING = "Where the test run points in the tests:"
CODE_HEADING = "Where the test run points in the code:"


def pointed_lines(
    report: str, texts: Mapping[str, str | None], unquoted: bool = False
) -> list[str]:
    """``path:line: `code` `` for each line of ``texts`` (path → a file's text) that ``report``
    names, first mention first, at most :data:`MAX_LINES`; blank lines skipped, and with
    ``unquoted`` those whose code the report already shows (pytest prints the failing assert;
    node's ``console.assert failed … at main.test.js:10:11`` does not) and, when others are
    left, the bare calls a stack passes through (``check(candidate)``, ``testX()``) and the
    assertions of one bare name inside a helper (``assert.ok(cond, …)``)."""
    out: list[tuple[str, str]] = []  # (the line, its code)
    seen: set[tuple[str, int]] = set()
    for match in _REF.finditer(report):
        path = match.group("path") or match.group("pypath")
        number = int(match.group("line") or match.group("pyline"))
        text = texts.get(path.removeprefix("./"))
        if text is None or (path, number) in seen:
            continue
        seen.add((path, number))
        code = _statement(text.splitlines(), number - 1)
        if code and not (unquoted and code in report):
            out.append((f"{path}:{number}: `{code}`", code))
        if len(out) == 2 * MAX_LINES:
            break
    checks = [x for x in out if not _gives_way(x[1])] if unquoted else out
    return [line for line, _ in (checks or out)[:MAX_LINES]]


_BARE_CALL = re.compile(r"(?:await\s+)?(?P<name>[\w.]+)\([^()]*\);?")
# an assertion of one bare name, inside a helper: the HumanEvalFix JavaScript shim's
# `assert.ok(cond, …)`, a Python helper's `assert ok`; the line that called it says what
_BARE_CHECK = re.compile(
    r"(?:(?:console\.)?assert(?:\.ok|\.true|True)?\s*\(\s*\w+\s*[,)]|assert\s+\w+\s*(?:,|$))"
)


def _gives_way(code: str) -> bool:
    """``code`` only calls a function, with simple arguments, and no assertion (the HumanEval
    harness's ``check(get_closest_vowel)``, a JavaScript test's ``testMatchParens()``), or
    asserts one bare name inside a helper."""
    call = _BARE_CALL.fullmatch(code)
    bare_call = call is not None and not re.search(r"assert|expect", call["name"], re.I)
    return bare_call or _BARE_CHECK.match(code) is not None


STATEMENT_LINES = 6  # at most, of a statement that goes on past its line
STATEMENT_CHARS = 300


def _statement(lines: list[str], index: int) -> str:
    """Line ``index`` of ``lines``, stripped, joined by the lines that close the brackets it
    leaves open (HumanEvalFix Go-113's ``assert.Equal([]string{`` said nothing of the check
    it began); "" when there is no such line."""
    if not 0 <= index < len(lines):
        return ""
    first = lines[index].rstrip()
    bare = blank_strings(first)
    if bare.endswith(" {") and all(bare.count(o) <= bare.count(c) for o, c in ("()", "[]")):
        return first.strip()  # a block it opens (`func f() {`, `if x {`): the line alone
    parts: list[str] = []
    depth = 0
    for line in lines[index : index + STATEMENT_LINES]:
        parts.append(line.strip())
        depth += bracket_depth(line, "\"'`")  # strings aside: Go-132's `IsNested("[[]][[")`
        if depth <= 0:
            break
    code = " ".join(x for x in parts if x)
    return code if len(code) <= STATEMENT_CHARS else code[: STATEMENT_CHARS - 1] + "…"


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


def where_in_code(report: str, code: Mapping[str, str | None]) -> str:
    """The lines of the editable ``code`` that ``report`` points at and does not show already,
    under their heading: a build error's ``main.go:29: missing return`` (HumanEvalFix Go-158),
    a panic's ``src/lib.rs:18`` (Rust-47), before any change was made."""
    return _listed(CODE_HEADING, pointed_lines(report, code, unquoted=True))


def brief(lines: Sequence[str], limit: int) -> list[str]:
    """At most ``limit`` of a report's ``lines``: its first ones and, whole, the test
    lines it points at (``where_in_tests``). HumanEvalFix JavaScript-11's one-function
    prompt showed the first 8 lines of the failure, a node stack that ends in `actual:
    false,`, and cut off `main.test.js:9: console.assert(stringXor('111000', '101010') ===
    '010010')`, the only line that says what was expected."""
    lines = list(lines)
    if TEST_HEADING not in lines:
        return lines[:limit]
    at = lines.index(TEST_HEADING)
    pointed = lines[at:]
    return [*lines[:at][: max(limit - len(pointed), 3)], *pointed]


def rejection_report(
    summary: str,
    before: Mapping[str, str | None],
    after: Mapping[str, str | None],
    tests: Mapping[str, str | None] | None = None,
) -> tuple[str, list[str]]:
    """A rejected change's report (``summary``, the lines of the change its errors point at,
    those of the read-only ``tests`` and those of the change that write a value a failed check
    got), and a note for each definition the change deleted
    that the code still uses (or the Rust ``mod tests;`` that compiled the task's tests) and
    for each slip the language's rule explains (``lang_slips``)."""
    pointed = (
        where(summary, after),
        where_in_tests(summary, tests or {}),
        where_written(summary, after, tests),
    )
    report = "\n".join(x for x in (summary, *pointed) if x)
    lost = lost_definitions(summary, before, after) + lost_test_modules(summary, before, after)
    return report, lost + slip_notes(summary, after)
