"""Short failure reports for the agent's repair prompt: only what is new, kept brief."""

from __future__ import annotations

import re
from collections.abc import Sequence

from patchwright.verify.model import GateResult, Problem
from patchwright.verify.testmodel import TestCase
from patchwright.verify.testrun import LOCATION, TestRun

MAX_PROBLEMS = 12
MAX_DETAIL_LINES = 8
MAX_CHARS = 4000


def _detail(text: str, message: str = "") -> str:
    """A few lines of ``text``, after ``message`` when one is given (and not already shown):
    a long diff or traceback keeps its tail, a list of failed checks its head."""
    head = [x for x in message.strip().splitlines() if x.strip()][:2]
    lines = _kept([x for x in text.strip().splitlines() if x.strip()])
    shown = " ".join(" ".join(lines).split())
    head = [x for x in head if " ".join(x.split()) not in shown]
    return "\n".join("    " + x for x in [*head, *lines])


def _kept(lines: list[str]) -> list[str]:
    """At most ``MAX_DETAIL_LINES`` of a failure's lines. A traceback's last lines say what
    failed; but where nearly every line is a failed check with its place (testify's or
    ``t.Errorf``'s ``main_test.go:12: Not equal …``, one per assertion), the first ones are
    kept, in the order the test wrote them: its first, simplest examples, not its last."""
    if len(lines) <= MAX_DETAIL_LINES:
        return lines
    if 3 * sum(bool(LOCATION.match(x.strip())) for x in lines) >= 2 * len(lines):
        more = len(lines) - MAX_DETAIL_LINES
        return [*lines[:MAX_DETAIL_LINES], f"... and {more} more like these"]
    return ["...", *lines[-MAX_DETAIL_LINES:]]


def summarize_failures(results: Sequence[GateResult]) -> str:
    """New errors, newly failing tests with their assertion message and traceback tail, per
    failed gate, and why a gate could not run; empty when every gate is ok. At most ~4,000
    characters."""
    parts: list[str] = []
    for r in results:
        if r.ok:
            continue
        if r.could_not_run:
            parts.append(f"{r.name} gate could not run: {r.reason or r.output[-300:]}")
            if r.reason and r.output:
                parts.append(_detail(r.output))
            continue
        count = len(r.new_problems)
        if _told_better(r, results):
            parts.append(f"{r.name} gate failed with {count} new problem{'s' * (count != 1)}; "
                         "the compiler's account of them is below.")  # fmt: skip
            continue
        parts.append(f"{r.name} gate failed with {count} new problem{'s' * (count != 1)}:")
        groups = _same_error(r.new_problems)
        for p, lines in groups[:MAX_PROBLEMS]:
            parts.append(f"- {p.render()}{_also_at(lines)}")
            if p.hint:
                parts.append(f"    {p.hint}")
            if p.detail and r.name in ("tests", "smoke"):
                parts.append(_detail(p.detail))
        if rest := sum(1 + len(lines) for _, lines in groups[MAX_PROBLEMS:]):
            parts.append(f"- ... and {rest} more")
        if not r.new_problems and r.output:
            parts.append(_detail(r.output))
    text = "\n".join(parts)
    if len(text) > MAX_CHARS:
        text = text[: MAX_CHARS - 20].rstrip() + "\n... (truncated)"
    return text


def _told_better(result: GateResult, results: Sequence[GateResult]) -> bool:
    """Whether a failed syntax gate's problems are all in files the types gate, run after it
    (``verify.gates``), found new problems in: the compiler says what tree-sitter only
    places."""
    if result.name != "syntax" or not result.new_problems:
        return False
    compiled = {p.path for r in results if r.name == "types" for p in r.new_problems}
    return all(p.path in compiled for p in result.new_problems)


def _same_error(problems: Sequence[Problem]) -> list[tuple[Problem, list[int]]]:
    """Each problem with the other lines the same error (same file, code and message) is
    reported at, first mention first: rustc's ``cannot find value `x` in this scope`` at
    eleven lines is one thing to fix, told once (with the first line's hint), and leaves room
    for the other errors (polyglot Rust two-bucket: 11 of 11 problems were that one)."""
    groups: dict[object, tuple[Problem, list[int]]] = {}
    for p in problems:
        key = p.key if p.line is not None and p.gate not in ("tests", "smoke") else id(p)
        if key in groups:
            groups[key][1].append(p.line or 0)
        else:
            groups[key] = (p, [])
    return list(groups.values())


_LINES_NAMED = 8


def _also_at(lines: list[int]) -> str:
    if not lines:
        return ""
    more = f" and {len(lines) - _LINES_NAMED} more" if len(lines) > _LINES_NAMED else ""
    named = ", ".join(str(n) for n in lines[:_LINES_NAMED])
    return f" (the same at line{'s' * (len(lines) > 1)} {named}{more})"


def describe_tests(run: TestRun, ids: Sequence[str], limit: int = MAX_PROBLEMS) -> str:
    """Failing tests with their message and traceback tail (the baseline's failure output);
    tests that fail with the same error at the same place in the code (not in the test) are
    told once, with the names of the others; past ``limit`` failures told, only how many
    more there are."""
    groups: dict[object, list[str]] = {}  # a cause (or the test itself) → its tests
    for test_id in ids:
        groups.setdefault(same_cause(run.cases[test_id]) or test_id, []).append(test_id)
    parts = []
    for cause, (test_id, *others) in list(groups.items())[:limit]:
        case = run.cases[test_id]
        parts.append(f"- {case.outcome}: {test_id}")
        if case.message or case.detail:
            parts.append(_detail(case.detail, case.message))
        if others and isinstance(cause, tuple):
            names = [other.rpartition("::")[2] for other in others]
            more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
            parts.append(f"    The same error at {cause[1]} in {len(names)} more: "
                         + ", ".join(names[:_NAMED]) + more)  # fmt: skip
    if rest := sum(len(tests) for tests in list(groups.values())[limit:]):
        parts.append(f"- ... and {rest} more")
    return "\n".join(parts)[:MAX_CHARS]


_NAMED = 6  # the other tests named after a shared failure


def same_cause(case: TestCase) -> tuple[str, str] | None:
    """(message, place) when a test failed with an error raised in the code rather than at
    its own assertion — a cause other tests can share — else None."""
    places = [line.split(": ", 1)[0] for line in case.detail.splitlines() if LOCATION.match(line)]
    if not places or not case.message.strip():
        return None
    place = places[-1]
    if not case.path or place.rpartition(":")[0] == case.path:
        return None
    return (" ".join(case.message.split()), place)


_LINE_NUMBER = re.compile(r":\d+")


def fails_as_before(run: TestRun, before: TestRun | None, ids: Sequence[str]) -> bool:
    """Whether every test of ``ids`` failed before the change with the same message and
    traceback (line numbers aside, as a change moves lines): the change made no difference
    to how they fail. False when a failure says nothing to compare."""
    if before is None or not ids:
        return False
    for i in ids:
        now = _said(run.cases[i]) if i in run.cases else ()
        if not now or i not in before.cases or _said(before.cases[i]) != now:
            return False
    return True


def _said(case: TestCase) -> tuple[str, ...]:
    text = (" ".join(case.message.split()), " ".join(case.detail.split()))
    return (case.outcome, *(_LINE_NUMBER.sub(":", t) for t in text)) if any(text) else ()
