"""The function a lint or type finding convicts, for the review's one-function prompt.

A finding convicts the function around its line, with every finding of the same kind
inside it. The failing-test suspects, and why one function is asked for at all, are in
:mod:`patchwright.agent.relations.suspects`.
"""

from __future__ import annotations

from collections.abc import Sequence

from patchwright.agent.relations.pycode import functions, innermost, source
from patchwright.agent.relations.suspects import MAX_LINES, Suspect
from patchwright.modes.review.findings import Finding


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
