"""The one function a failing test convicts, for a prompt that asks for that function only.

A small model shown a whole file and asked for the whole file back tends to copy it
unchanged, the bug included. Shown the failing test, what it said, and the one function it
runs — told that the bug is there and asked for that function corrected — the same model
finds the wrong line far more often (``benchmarks/review/``: the seven planted bugs the
two fixtures' tests catch, 0 of 7 as whole files, 7 of 7 this way when the model is asked
once more for the code after a reply that only explains).

The function is the innermost one around the target's line the test's traceback passes
through; else, when the test fails in its own assertion, the one function (or method) of the
target the test's body names. Anything less certain — no function, or two candidates —
gives no suspect, and the proposal asks for the whole file as before. A lint or type finding
convicts the function around its line the same way (``find_flagged``), with every finding of
the same kind inside it.

A suspect whose proposal already failed is passed over for the next one (``pick``), so a
second look at the file tries another of its failing tests or findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.modes.review.findings import Finding
from patchwright.modes.review.links import names_in_test
from patchwright.modes.review.pycode import Function, functions, innermost, source
from patchwright.verify import TestRun

MAX_LINES = 60  # a longer function is no focus: the whole file is asked for instead
SAYS_LINES = 6  # of the assertion message


@dataclass(frozen=True)
class Suspect:
    """The function a failing test runs in the target, and the test that convicts it."""

    name: str
    code: str  # the function's source, dedented
    test_id: str = ""
    test_path: str = ""
    test_code: str = ""  # the test function's source, dedented
    says: str = ""  # what the assertion said
    flagged: tuple[str, ...] = ()  # or: the lint or type findings inside it, rendered


def _convicted(text: str, frames: Sequence[int], names: set[str]) -> Function | None:
    candidates = functions(text)
    for line in frames:
        found = innermost(candidates, line)
        if found is not None:
            return found
    named = [f for f in candidates if f.name in names]
    return named[0] if len(named) == 1 else None


def _says(message: str, detail: str) -> str:
    lines = [x.rstrip() for x in detail.splitlines() if x.lstrip().startswith("E ")]
    first = message.strip().splitlines()[0] if message.strip() else ""
    if first and not any(first in x for x in lines):
        lines.insert(0, first)
    return "\n".join(lines[:SAYS_LINES])


def pick(suspects: Sequence[Suspect], avoid: Sequence[str]) -> Suspect | None:
    """The first suspect not named in ``avoid``; when all are, the first; None for none."""
    fresh = [s for s in suspects if s.name not in avoid]
    return next(iter(fresh or suspects), None)


def find_flagged(found: Sequence[Finding], kind: str, text: str) -> list[Suspect]:
    """The functions of ``text`` that findings of ``kind`` (lint, types) point into, in
    order, each with all of that kind inside it."""
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


def find_suspects(
    run: TestRun, failing: Sequence[str], target: str, texts: Mapping[str, str]
) -> list[Suspect]:
    """The functions of ``target`` that ``failing`` (test ids) convict, in order, one
    test each."""
    found: list[Suspect] = []
    text = texts.get(target, "")
    for test_id in failing:
        case = run.cases.get(test_id)
        if case is None or not case.path or not text:
            continue
        test_text = texts.get(case.path, "")
        detail = "\n".join(x for x in (case.message, case.detail) if x)
        frames = [line for _, line in referenced_files(detail, [target])]
        node = _convicted(text, frames, names_in_test(test_id, test_text) or set())
        test_name = test_id.split("::")[-1].split("[")[0]
        test_node = next((f for f in functions(test_text) if f.name == test_name), None)
        if node is None or test_node is None:
            continue
        code = source(text, node)
        if code.count("\n") >= MAX_LINES or any(s.name == node.name for s in found):
            continue
        found.append(Suspect(node.name, code, test_id, case.path, source(test_text, test_node),
                             _says(case.message, case.detail)))  # fmt: skip
    return found
