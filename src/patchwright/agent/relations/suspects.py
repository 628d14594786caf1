"""The one function a failing test convicts, for a prompt that asks for that function only.

A small model shown a whole file and asked for the whole file back tends to copy it
unchanged, the bug included. Shown the failing test, what it said, and the one function it
runs — told that the bug is there and asked for that function corrected — the same model
finds the wrong line far more often (``benchmarks/review/``: the seven planted bugs the
two fixtures' tests catch, 0 of 7 as whole files, 7 of 7 this way when the model is asked
once more for the code after a reply that only explains). The review asks this way first;
a task's run asks this way once a whole-file attempt has failed (``pipeline_solver``).

The function is the innermost one around the target's line the test's traceback passes
through; else, when the test fails in its own assertion, the one function (or method) of the
target the test's body names. A test module that fails while it is collected (its own code
at module level calls a checking function) is read the same way, its test being the
innermost function of the test module the traceback passes through. Anything less certain —
no function, or two candidates — gives no suspect, and the prompt asks for whole files as
before.

A suspect whose proposal already failed is passed over for the next one (``pick``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from patchwright.agent.relations.pycode import Function, functions, innermost, source
from patchwright.agent.relations.traceback_refs import referenced_lines
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
    path: str = ""  # the file that holds the function
    caller: str = ""  # the function the test runs, when the bug is in one it calls


def _used(node: ast.AST) -> set[str]:
    used: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            used.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            used.add(sub.attr)
    return used


def names_in_test(test_id: str, text: str) -> set[str] | None:
    """Identifiers used in the test function's body; None when it cannot be found."""
    name = test_id.split("::")[-1].split("[")[0]
    node = next((f for f in functions(text) if f.name == name), None) if name else None
    return _used(node) if node is not None else None


def _test_function(test_id: str, path: str, text: str, detail: str) -> Function | None:
    """The test's function: the one its id names, else (a module that failed as it was
    collected) the innermost one of its module that the traceback passes through."""
    name = test_id.split("::")[-1].split("[")[0] if "::" in test_id else ""
    candidates = functions(text)
    if name:
        return next((f for f in candidates if f.name == name), None)
    for line in referenced_lines(detail, path):
        found = innermost(candidates, line)
        if found is not None:
            return found
    return None


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
        test_node = _test_function(test_id, case.path, test_text, detail)
        if test_node is None:
            continue
        frames = referenced_lines(detail, target)
        node = _convicted(text, frames, _used(test_node))
        if node is None:
            continue
        code = source(text, node)
        if code.count("\n") >= MAX_LINES or any(s.name == node.name for s in found):
            continue
        found.append(Suspect(node.name, code, test_id, case.path, source(test_text, test_node),
                             _says(case.message, case.detail), path=target))  # fmt: skip
    return found
