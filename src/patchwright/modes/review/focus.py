"""Where the problems are: what the proposal prompt shows next to the whole file.

A small model given a whole file and a list of ``path:line: [code] message`` lines often
cannot find the line, or answers that nothing is wrong. So, as the run mode's repair prompt
gives the error with its place, the prompt gives each of the target's remaining findings with
the code around it — the whole enclosing function when it is short, else its ``def`` line
and a few lines around the finding, numbered, the finding's line marked ``>`` — and each
failing test that points at the target with the test itself (its function, the failing line
marked), what the assertion said, and the target's code the test runs (the frame its
traceback passes through in the target, else the target's definitions the test names).

Only the remaining findings are listed: a failing test goes with its test, not as a finding
too; lazy patterns (``Any``, TODO notes) only where the tools report nothing worse, since no
gate counts their fix as progress.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from patchwright.agent.relations.pycode import (
    FUNCTIONS,
    definitions,
    functions,
    innermost,
    source,
    span,
)
from patchwright.agent.relations.suspects import MAX_LINES, Suspect, find_suspects, names_in_test
from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.modes.review.findings import Finding
from patchwright.modes.review.formats import finding_kind
from patchwright.verify import TestRun
from patchwright.verify.summary import describe_tests

MAX_EXCERPTS = 6  # findings shown with their code (the rest as one line each)
MAX_TESTS = 3  # failing tests shown with their code (the rest named)
SHORT_FUNCTION = 14  # a function this short is shown whole around its finding
MAX_SNIPPET = 18  # lines of one definition shown for a failing test
DETAIL_LINES = 8  # lines of the assertion message and traceback tail
MAX_CHARS = 6000  # of all the failing tests together
_ORDER = {"smoke": 0, "tests": 1, "types": 2, "lint": 3, "lazy": 4}
_PLACED = ("smoke", "types", "lint")  # findings shown with their code


def _numbered(lines: Sequence[str], first: int, last: int, mark: Iterable[int] = ()) -> list[str]:
    """Lines ``first``..``last`` (1-based, inclusive) as ``  > 15 | code``."""
    marked = set(mark)
    width = len(str(last))
    return [
        f"{'>' if n in marked else ' '} {n:>{width}} | {lines[n - 1]}".rstrip()
        for n in range(max(1, first), min(len(lines), last) + 1)
    ]


def _enclosing(text: str, line: int) -> tuple[int, int] | None:
    """The innermost function around ``line``: its first and last line."""
    found = innermost(functions(text), line)
    return span(found) if found is not None else None


def code_around(text: str, line: int) -> list[str]:
    """The code around ``line`` of ``text``, numbered, ``line`` marked (see the module
    docstring); empty when the line is not in the text."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return []
    span = _enclosing(text, line)
    if span is not None and span[1] - span[0] < SHORT_FUNCTION:
        return _numbered(lines, span[0], span[1], [line])
    first, last = line - 2, line + 1
    out: list[str] = []
    if span is not None and span[0] < first:
        out = _numbered(lines, span[0], span[0]) + (["    ..."] if span[0] + 1 < first else [])
    return out + _numbered(lines, first, last, [line])


def _indent(lines: Iterable[str], by: int = 4) -> str:
    return "\n".join(" " * by + x for x in lines)


def shown_findings(found: Sequence[Finding], text: str, *, code: bool = True) -> list[str]:
    """The findings the prompt lists, most serious first, the first few with their code
    (``code``)."""
    listed = [f for f in found if f.source != "tests"]
    if any(f.source != "lazy" for f in listed):
        listed = [f for f in listed if f.source != "lazy"]
    listed.sort(key=lambda f: (_ORDER.get(f.source, 9), f.line or 0))
    out = []
    for i, finding in enumerate(listed):
        near = code and finding.source in _PLACED and i < MAX_EXCERPTS
        lines = code_around(text, finding.line) if near and finding.line else []
        out.append(finding.render() + (f"\n{_indent(lines)}" if lines else ""))
    return out


def _tail(text: str) -> list[str]:
    """The assertion message and traceback tail, each line once."""
    lines: list[str] = []
    seen: set[str] = set()
    for line in (x for x in text.strip().splitlines() if x.strip()):
        key = line.strip().removeprefix("E").strip()
        if key not in seen:
            seen.add(key)
            lines.append(line)
    return ["...", *lines[-DETAIL_LINES:]] if len(lines) > DETAIL_LINES else lines


def _test_code(test_id: str, test_path: str, text: str, detail: str) -> list[str]:
    """The test function, the line the failure names in it marked."""
    name = test_id.split("::")[-1].split("[")[0]
    lines = text.splitlines()
    marks = [line for path, line in referenced_files(detail, [test_path])]
    for node in functions(text):
        if node.name == name:
            first, last = span(node)
            shown = _numbered(lines, first, min(last, first + MAX_SNIPPET - 1), marks)
            return shown + (["    ..."] if last >= first + MAX_SNIPPET else [])
    return []


def _spans_run(target: str, text: str, names: set[str], detail: str) -> list[tuple[int, int]]:
    """Where the target's code the test runs is: its traceback's frame there, else the
    functions the test names (at most two), else the short classes it names."""
    frames = [line for _, line in referenced_files(detail, [target])]
    if frames:
        return [(frames[0], frames[0])]
    named = [n for n in definitions(text) if getattr(n, "name", "") in names]
    called = [span(n) for n in named if isinstance(n, FUNCTIONS)]
    classes = [span(n) for n in named if isinstance(n, ast.ClassDef)]
    spans = sorted(called or classes)
    outer = [s for s in spans if not any(o != s and o[0] <= s[0] <= s[1] <= o[1] for o in spans)]
    return [s for s in outer if s[1] - s[0] < MAX_SNIPPET][:2]


def _code_run(text: str, spans: list[tuple[int, int]]) -> list[str]:
    lines, out = text.splitlines(), []
    for first, last in spans:
        out += code_around(text, first) if first == last else _numbered(lines, first, last)
    return out


def describe_failing(
    run: TestRun, ids: Sequence[str], target: str, texts: Mapping[str, str]
) -> str:
    """The failing tests that point at ``target``: each with its code, what it said, and the
    target's code it runs (the first few; the rest named)."""
    parts: list[str] = []
    shown: list[tuple[int, int]] = []
    for i, test_id in enumerate(ids):
        case = run.cases[test_id]
        parts.append(f"- {case.outcome}: {test_id}")
        if i >= MAX_TESTS:
            continue
        detail = "\n".join(x for x in (case.message, case.detail) if x)
        test_text = texts.get(case.path, "")
        code = _test_code(test_id, case.path, test_text, detail) if case.path else []
        if code:
            parts += [f"    The test ({case.path}):", _indent(code, 6)]
        if detail:
            parts += ["    What it says:", _indent(_tail(detail), 6)]
        names = names_in_test(test_id, test_text) or set()
        spans = _spans_run(target, texts.get(target, ""), names, detail)
        if spans and spans == shown:
            parts.append(f"    The code in {target} it runs: as above")
        elif spans:
            shown = spans
            runs = _code_run(texts.get(target, ""), spans)
            parts += [f"    The code in {target} it runs:", _indent(runs, 6)]
    text = "\n".join(parts)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 20].rstrip() + "\n    ..."


@dataclass(frozen=True)
class Focus:
    """A target's remaining findings as the prompts show them."""

    findings: list[str] = field(default_factory=list)  # every one, one line each (progress)
    shown: list[str] = field(default_factory=list)  # those the proposal lists, with their code
    brief: list[str] = field(default_factory=list)  # the same, one line each (later prompts)
    about: str = "clean"  # the most serious one's kind (formats.finding_kind)
    failures: str = ""  # the failing tests pointing at it: their code, output, code run
    failures_brief: str = ""  # the same with their output only (later prompts)
    suspects: list[Suspect] = field(default_factory=list)  # functions at fault (suspect.py)


def focus(
    run: TestRun | None, found: Sequence[Finding], target: str, texts: Mapping[str, str]
) -> Focus:
    """What the prompts show of ``found``, the findings of ``target``."""
    text = texts.get(target, "")
    failing = sorted({f.test for f in found if f.test})
    tested = run is not None and failing
    about = finding_kind("bug", found)
    return Focus(
        findings=[f.render() for f in found],
        shown=shown_findings(found, text),
        brief=shown_findings(found, text, code=False),
        about=about,
        failures=describe_failing(run, failing, target, texts) if run and tested else "",
        failures_brief=describe_tests(run, failing) if run and tested else "",
        suspects=_suspects(run, found, failing, target, texts),
    )


def _suspects(
    run: TestRun | None,
    found: Sequence[Finding],
    failing: Sequence[str],
    target: str,
    texts: Mapping[str, str],
) -> list[Suspect]:
    """The functions at fault, most serious first: those failing tests convict, then those
    type errors and lint findings point into — each function once."""
    text = texts.get(target, "")
    convicted = find_suspects(run, failing, target, texts) if run is not None else []
    suspects = [*convicted, *find_flagged(found, "types", text), *find_flagged(found, "lint", text)]
    first: dict[str, Suspect] = {}
    for suspect in suspects:
        first.setdefault(suspect.name, suspect)
    return list(first.values())


def find_flagged(found: Sequence[Finding], kind: str, text: str) -> list[Suspect]:
    """The functions of ``text`` that findings of ``kind`` (lint, types) point into, in
    order, each with all of that kind inside it: a finding convicts the function around its
    line, for the review's one-function prompt (the failing-test suspects, and why one
    function is asked for at all, are in :mod:`patchwright.agent.relations.suspects`)."""
    suspects: dict[int, Suspect] = {}  # by the function's first line
    candidates = functions(text)
    located = sorted((f for f in found if f.source == kind and f.line), key=lambda f: f.line or 0)
    for finding in located:
        node = innermost(candidates, finding.line or 0)
        code = source(text, node) if node is not None else ""
        if node is None or code.count("\n") >= MAX_LINES:
            continue
        before = suspects.get(node.lineno, Suspect(node.name, code))
        flagged = (*before.flagged, finding.render())
        suspects[node.lineno] = Suspect(node.name, code, flagged=flagged)
    return list(suspects.values())
