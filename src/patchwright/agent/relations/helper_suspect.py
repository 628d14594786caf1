"""The helper a convicted function calls, when the value its failed check got is written there.

HumanEvalFix Rust-137: the test calls ``compare_one``, which returns what its helper
``original_type`` gives, and that helper ends in ``res = RtnType::Float(0.0);`` — the value
the test got. Told where the value is written (:mod:`patchwright.agent.value_origin`) yet
asked for ``compare_one`` corrected, a 1.5B model named the helper's line as the wrong one and
then rewrote ``compare_one`` three times over, the helper untouched: the one-function prompt
asks for the function it names. Asked for the helper, it has the line in front of it.

Only when every line the origin quotes lies in one function of the suspect's file, another
function that the suspect calls by name, short enough for a focus and not a stub; anything
less certain keeps the suspect.
"""

from __future__ import annotations

import re
from dataclasses import replace

from patchwright.agent.relations.brace_suspects import function_at, is_brace_stub
from patchwright.agent.relations.pycode import functions, innermost, is_stub, source
from patchwright.agent.relations.suspects import MAX_LINES, Suspect

_QUOTED = re.compile(r"^- (.+?):(\d+): `", re.M)  # a line value_origin quotes


def helper_suspect(suspect: Suspect, origin: str, text: str) -> Suspect | None:
    """``suspect`` moved to the function of its file (``text``) that writes the value the
    failed check got, as ``origin`` quotes it, when ``suspect`` calls it; else None."""
    quoted = _QUOTED.findall(origin)
    if not quoted or any(path != suspect.path for path, _ in quoted):
        return None
    held = {_function_at(suspect.path, text, int(n)) for _, n in quoted}
    if len(held) != 1:
        return None
    found = held.pop()
    if found is None or found[0] == suspect.name or not _calls(suspect.code, found[0]):
        return None
    name, code = found
    if code.count("\n") >= MAX_LINES:
        return None
    return replace(suspect, name=name, code=code, caller=suspect.name)


def _function_at(path: str, text: str, line: int) -> tuple[str, str] | None:
    """The innermost function around ``line`` (1-based), unless it is a stub."""
    if not path.endswith(".py"):
        found = function_at(path, text, line)
        return None if found is None or is_brace_stub(found[1]) else found
    node = innermost(functions(text), line)
    if node is None or is_stub(node):
        return None
    return node.name, source(text, node)


def _calls(code: str, name: str) -> bool:
    """Whether ``code`` calls ``name`` (``name(``, ``self.name(``, ``name::<T>(``)."""
    return re.search(rf"(?<![\w$]){re.escape(name)}\s*(?:::<[^>]*>\s*)?\(", code) is not None
