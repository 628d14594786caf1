"""Whether a change repeats one that verification already turned down, or changes nothing
the compiler sees: byte for byte, or — in a language where layout and comments carry no
meaning (Go, Rust, JavaScript, TypeScript) — but for whitespace and comments outside string
literals (for "changes nothing", whitespace and the comments no tool reads: a Rust doc
comment holds doc tests, a Go directive or a Go test's ``// Output:`` is read).

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


# the comments a toolchain reads: Rust's doc comments (doc tests), Go's directives
_READ_COMMENTS: dict[str, bytes] = {
    "rust": rb"///[^\n]*|//![^\n]*|/\*[*!].*?\*/",
    "go": rb"//go:[^\n]*|//export [^\n]*|// ?\+build[^\n]*|//line [^\n]*",
}
_CODE = {
    family: re.compile(
        rb'(?P<text>"(?:\\.|[^"\\])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])*\')'
        rb"|(?P<read>" + read + rb")|//[^\n]*|/\*.*?\*/|\s+",
        re.S,
    )
    for family, read in _READ_COMMENTS.items()
}


def same_code(path: str, old: str | None, new: str | None) -> bool:
    """Whether ``new`` differs from ``old`` (the file ``path``) in layout only, in a language
    where layout carries no meaning: whitespace outside string literals and, in Rust and in a
    Go file that is no test, the comments no tool reads (a doc comment holds Rust's doc tests;
    a Go test file's ``// Output:`` is checked). HumanEvalFix Rust-38's first reply added a
    "// Corrected line" comment to a function it left as it was."""
    family = family_of(path)
    if old is None or new is None or family is None:
        return False
    code = _CODE.get(family) if not path.endswith("_test.go") else None
    if code is None:
        return _spaceless(old.encode()) == _spaceless(new.encode())
    return _uncommented(code, old.encode()) == _uncommented(code, new.encode())


def _spaceless(text: bytes) -> bytes:
    return _SPACES.sub(lambda m: m.group("text") or b"", text)


def _uncommented(code: re.Pattern[bytes], text: bytes) -> bytes:
    return code.sub(lambda m: m.group("text") or m.group("read") or b"", text)


def echo_of(
    working: WorkingCopy, rejected: Sequence[Changes], tests_decide: bool
) -> tuple[Literal["unchanged", "repeated"] | None, list[str]]:
    """Whether the working copy's change is an echo — ``unchanged`` (nothing, or, where
    failing tests decide (``tests_decide``: a runner named them or one convicted a function),
    only re-spacing: the paths so changed) or
    ``repeated`` (a rejected change again) — else None."""
    changes = working.changes()
    layout = [p for p in changes if tests_decide
              and same_code(p, working.original(p), working.text(p))]  # fmt: skip
    if not changes or len(layout) == len(changes):
        return "unchanged", layout
    return ("repeated" if repeats(changes, rejected) else None), []
