"""The third way in for a small model, after the one-function retry has failed too: the
convicted function written anew from its comment and the failing test, its buggy body not
shown.

Shown a wrong body, a small model keeps its shape: on HumanEvalFix Go-57 and Go-58 each
repair after the first rewrote the same loop with its comparison turned around, three times
over. Shown only the contract — the file with that body left out, the comment, the
signature, the test and what it said — it writes the function as it would from a
specification, which is what these models are trained to do best.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from patchwright.agent.pipeline_options import Refocus
from patchwright.agent.prompts import render
from patchwright.agent.relations.pycode import functions
from patchwright.agent.relations.suspects import Suspect
from patchwright.edits.brace_defs import body_lines, definitions
from patchwright.llm import Message

TO_WRITE = "the body: to write"


def without_body(path: str, text: str, name: str) -> str | None:
    """``text`` with the body of its one function ``name`` left out (a Python docstring
    kept), or None where that function cannot be told apart or has no body of its own lines."""
    cut = _python_body(text, name) if path.endswith(".py") else _brace_body(path, text, name)
    if cut is None:
        return None
    first, stop, placeholder = cut
    lines = text.split("\n")
    return "\n".join([*lines[:first], placeholder, *lines[stop:]])


def _python_body(text: str, name: str) -> tuple[int, int, str] | None:
    found = [f for f in functions(text) if f.name == name]
    if len(found) != 1:
        return None
    node = found[0]
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    if not body or body[0].lineno <= node.lineno or node.end_lineno is None:
        return None
    line = text.split("\n")[body[0].lineno - 1]
    indent = line[: len(line) - len(line.lstrip())]
    return body[0].lineno - 1, node.end_lineno, f"{indent}...  # {TO_WRITE}"


def _brace_body(path: str, text: str, name: str) -> tuple[int, int, str] | None:
    found = [s for s in definitions(path, text) if s.name == name]
    body = body_lines(path, text, found[0]) if len(found) == 1 else None
    if body is None:
        return None
    first = text.split("\n")[body[0]]
    indent = (
        first[: len(first) - len(first.lstrip())] if first.strip() else found[0].indent + "    "
    )
    return body[0], body[1], f"{indent}// {TO_WRITE}"


def rewrite_for(
    suspect: Suspect, text: str, system: str, args: Mapping[str, object]
) -> Refocus | None:
    """The conversation that asks for ``suspect`` written anew, where its body can be left out
    of ``text`` (its file) and the runner said how it fails; ``args`` are the one-function
    prompt's (the path, the fence's language, the task, the runner's and the comment's names)."""
    shown = without_body(suspect.path, text, suspect.name)
    if shown is None or suspect.flagged or not suspect.says:
        return None
    prompt = render("rewrite_function", shown=shown, suspect=suspect, **args)
    messages: tuple[Message, ...] = (
        {"role": "system", "content": system},
        {"role": "user", "content": prompt},
    )
    return Refocus(messages, suspect.name, suspect.path, way="rewrite")
