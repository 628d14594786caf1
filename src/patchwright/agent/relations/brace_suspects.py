"""The one function a failing test convicts in a Go, Rust, JavaScript or TypeScript file, for
the one-function retry (``agent.task.refocus``) — what ``suspects`` finds in Python.

Without a traceback to follow, the conviction is by name: the one function of the target the
task names in backquotes, else the one the failing test's body calls (its function found by
the line the runner gave — or the ``test(...)`` call there — else by its name; a short test
file is read whole when neither finds it). A function the test names among others, or a name the file holds twice, convicts
nothing.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence

from patchwright.agent.pointed_lines import brief
from patchwright.agent.relations.suspects import MAX_LINES, Suspect
from patchwright.edits.brace_defs import Span, definitions, span_text, statement_at
from patchwright.verify import TestCase, TestRun

SAYS_LINES = 8  # of the failing test's output
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_STUB = re.compile(
    r"^(?:panic\([^)]*\)|todo!\([^)]*\)|unimplemented!\([^)]*\)"
    r"|throw\s+new\s+Error\([^)]*\));?$"
)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _functions(path: str, text: str) -> list[Span]:
    """The functions and methods of the file whose names it holds once."""
    spans = definitions(path, text)
    names = [s.name for s in spans]
    return [
        s for s in spans if names.count(s.name) == 1 and "{" in span_text(text, s, leading=False)
    ]


def _code(text: str, span: Span) -> str:
    """A definition's source, dedented, and the attribute and comment lines above it dedented
    apart (HumanEvalFix's Rust tests put ``#[test]`` at the margin, the function inside). A
    block comment keeps its layout: shown flush left, a reply copied it so, and the merge
    wrote that re-indented comment into the file (HumanEvalFix JavaScript-46)."""
    body = textwrap.dedent(span_text(text, span, leading=False))
    if span.head == span.start:
        return body
    head = "\n".join(text.split("\n")[span.start : span.head])
    return f"{textwrap.dedent(head)}\n{body}"


def function_at(path: str, text: str, line: int) -> tuple[str, str] | None:
    """The name and source (dedented) of the innermost function of ``text`` (the file
    ``path``) whose lines hold the 1-based ``line`` and whose name the file holds once."""
    around = [s for s in _functions(path, text) if s.head <= line - 1 < s.stop]
    if not around:
        return None
    span = min(around, key=lambda s: s.stop - s.start)
    return span.name, _code(text, span)


def _one(spans: Iterable[Span], names: set[str]) -> Span | None:
    named = [s for s in spans if s.name in names]
    return named[0] if len(named) == 1 else None


def _test_code(case: TestCase, text: str) -> str:
    """The failing test's function: the one around the line the runner gave (else the
    statement on that line: a ``test(...)`` call), else the one its id ends with; else, for
    a short test file, the file."""
    spans = definitions(case.path, text)
    if case.line is not None:
        around = [s for s in spans if s.head <= case.line - 1 < s.stop]
        if around:
            return _code(text, min(around, key=lambda s: s.stop - s.start))
        if statement := statement_at(case.path, text, case.line):
            return textwrap.dedent(statement)
    name = re.split(r"::|/|\.", case.id)[-1].split(" ")[0]
    found = _one(spans, {name})
    if found is not None:
        return _code(text, found)
    return text if text.count("\n") < MAX_LINES else ""


def _says(case: TestCase) -> str:
    """The message and the detail's lines, less a message the detail already says (Go's
    ``Not equal: …`` heads its own ``main_test.go:10: Not equal: …`` line)."""
    detail = [x.rstrip() for x in case.detail.splitlines() if x.strip()]
    message = [x.rstrip() for x in case.message.splitlines() if x.strip()]
    spaced = [" ".join(x.split()) for x in detail]
    said = [x for x in message if not any(" ".join(x.split()) in d for d in spaced)] + detail
    return "\n".join(said[:SAYS_LINES])


def find_brace_suspects(
    task_names: set[str], run: TestRun | None, failing: Sequence[str], target: str,
    texts: Mapping[str, str], failures: str,
) -> list[Suspect]:  # fmt: skip
    """The function of ``target`` the task names (``task_names``), else those the
    ``failing`` tests of ``run`` convict, one test each; none when a function is too long
    for a focus."""
    text = texts.get(target, "")
    candidates = _functions(target, text)
    named = _one(candidates, task_names)
    cases = [run.cases[t] for t in failing if run is not None and t in run.cases]
    found: list[Suspect] = []
    for case in cases:
        test_code = _test_code(case, texts.get(case.path, "")) if case.path else ""
        convicted = named or _one(candidates, set(_WORD.findall(test_code)))
        if convicted is None or any(s.name == convicted.name for s in found):
            continue
        found.append(Suspect(convicted.name, _code(text, convicted), case.id, case.path,
                             test_code, _says(case), path=target))  # fmt: skip
    if named is not None and not found:
        says = "\n".join(brief([x for x in failures.splitlines() if x.strip()], SAYS_LINES))
        found.append(Suspect(named.name, _code(text, named), says=says, path=target))
    return [s for s in found if s.code.count("\n") < MAX_LINES]


def is_brace_stub(code: str) -> bool:
    """Whether a function is not written yet: its body, comments aside, is empty or only
    ``panic(...)``, ``todo!()``, ``unimplemented!()`` or ``throw new Error(...)``."""
    body = _COMMENTS.sub("", code)
    start, end = body.find("{"), body.rfind("}")
    inner = body[start + 1 : end].strip() if 0 <= start < end else body
    return not inner or bool(_STUB.match(" ".join(inner.split())))
