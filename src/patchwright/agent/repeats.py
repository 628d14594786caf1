"""Whether a change repeats one that verification already turned down, or changes nothing
the compiler sees: byte for byte, or — in a language where layout and comments carry no
meaning (Go, Rust, JavaScript, TypeScript) — but for whitespace and comments outside string
literals (whitespace only, for "changes nothing": comments can hold doc tests).

HumanEvalFix Go-13: the whole-file attempt changed ``i < b`` to ``i <= b`` (and re-spaced the
file); the one-function retry then sent the same ``i <= b`` in the file's own layout. It was
checked again, failed the same way, and cost an iteration that a repeat costs nothing: a
repeat is answered with a new conversation, within the run's free retries. Go-34's
whole-file reply only re-indented main.go (tabs to spaces); it too was checked and failed
exactly as before, where "your reply changes nothing" would have cost no iteration.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from patchwright.agent.solve_types import Changes
from patchwright.agent.working_copy import WorkingCopy
from patchwright.edits.brace_defs import family_of

_TOKENS = re.compile(
    rb'(?P<text>"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\')'
    rb"|//[^\n]*|/\*.*?\*/|\s+",
    re.S,
)
_SPACES = re.compile(rb'(?P<text>"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\')|\s+')


def _layout_free(text: bytes) -> bytes:
    """``text`` without the whitespace and comments outside its string literals."""
    return _TOKENS.sub(lambda m: m.group("text") or b"", text)


def _key(changes: Changes) -> tuple[tuple[str, bytes | None], ...]:
    return tuple(
        (path, text if text is None or family_of(path) is None else _layout_free(text))
        for path, text in sorted(changes.items())
    )


def repeats(changes: Changes, rejected: Sequence[Changes]) -> bool:
    """Whether ``changes`` is, file for file, one of the ``rejected`` changes again."""
    if changes in rejected:
        return True
    key = _key(changes)
    return any(_key(old) == key for old in rejected)


def same_code(path: str, old: str | None, new: str | None) -> bool:
    """Whether ``new`` differs from ``old`` (the file ``path``) in whitespace only (outside
    string literals), in a language where layout carries no meaning. Comments count: a Rust
    doc test lives in one."""
    if old is None or new is None or family_of(path) is None:
        return False
    return _spaceless(old.encode()) == _spaceless(new.encode())


def _spaceless(text: bytes) -> bytes:
    return _SPACES.sub(lambda m: m.group("text") or b"", text)


def echo_of(
    working: WorkingCopy, rejected: Sequence[Changes], convicted: bool
) -> tuple[Literal["unchanged", "repeated"] | None, list[str]]:
    """Whether the working copy's change is an echo — ``unchanged`` (nothing, or, where a
    failing test ``convicted`` a function, only re-spacing: the paths so changed) or
    ``repeated`` (a rejected change again) — else None."""
    changes = working.changes()
    layout = [p for p in changes if convicted
              and same_code(p, working.original(p), working.text(p))]  # fmt: skip
    if not changes or len(layout) == len(changes):
        return "unchanged", layout
    return ("repeated" if repeats(changes, rejected) else None), []
