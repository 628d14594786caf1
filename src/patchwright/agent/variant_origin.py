"""Where the code writes the variant a failed check got.

HumanEvalFix Rust-137: ``compare_one(&1, &2)`` gave ``Float(0.0)`` where the test wanted
``Int(2)``; a helper of the function the task named ends in ``res = RtnType::Float(0.0);``,
overwriting what it found. Told only ``left: Float(0.0)`` and ``right: Int(2)``, a 1.5B model
rewrote the function the task named three times and never the helper. Like a string
(:mod:`patchwright.agent.value_origin`), a variant or a tuple struct holding a value
(``Float(0.0)``, ``Some(3)``, ``Err("empty")``: what Rust's ``Debug`` prints) is written in few
places, so saying where takes the reader to the line::

    The test got `Float(0.0)` where it expected `Int(2)`; the code writes `Float(0.0)` here:
    - src/lib.rs:83: `res = RtnType::Float(0.0);`

Only a value of that shape (a bare number is written in too many places that have nothing to
do with it), only where the code writes it on a few lines and not the expected one too, and
never in a comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from patchwright.agent.searched_code import MOST_LINES, searched_text

# `Float(0.0)`, `Some((1, 2))`, `Err("empty")`: a capitalised name and what it holds
_VARIANT = re.compile(r"[A-Z]\w*\((?:[^()\n]|\([^()\n]*\))+\)")
# the sides of a failed check: Rust's left and right, pytest's `assert a == b`
_SIDES = (
    re.compile(r"left: ([^\n]+)\n\s*right: ([^\n]+)"),
    re.compile(r"\bassert ([^\n=]+) == ([^\n]+)"),
)
_COMMENT = ("//", "#", "--")  # block comments are blanked out first: `*out = …` is code


def where_variant_written(
    report: str, code: Mapping[str, str | None], tests: Mapping[str, str | None] | None = None
) -> list[str]:
    """A block for each variant a failed check in ``report`` got that the ``code`` (path →
    text) writes on a few lines, and the expected side does not: a line saying so, and those
    lines quoted (where it writes the expected variant too, what is wrong is which it gives,
    not the value). The side the ``tests`` write is the one expected; when they write neither
    or both, the check is said to compare the two."""
    pairs = [(got, other) for got, other in _pairs(report) if _VARIANT.fullmatch(got)]
    if not pairs:  # most reports: no file is read
        return []
    blocks: list[str] = []
    code_lines, test_lines = _lines(code), _lines(tests or {})
    for got, other in pairs:
        if _written(got, test_lines):
            continue  # the tests write it: it is the value expected
        found = _written(got, code_lines)
        both = _VARIANT.fullmatch(other) and _written(other, code_lines)
        if not found or len(found) > MOST_LINES or both:
            continue  # with both written, what is wrong is which one it gives
        head = (f"The test got `{got}` where it expected `{other}`" if _written(other, test_lines)
                else f"The failed check compared `{got}` with `{other}`")  # fmt: skip
        block = "\n".join([f"{head}; the code writes `{got}` here:", *found])
        if block not in blocks:
            blocks.append(block)
    return blocks


def _pairs(report: str) -> Iterator[tuple[str, str]]:
    for pattern in _SIDES:
        for m in pattern.finditer(report):
            left, right = m[1].strip(), m[2].strip()
            yield left, right
            yield right, left


def _lines(files: Mapping[str, str | None]) -> list[tuple[str, int, str]]:
    """``(path, line number, line)``, stripped, for each line of ``files`` outside comments."""
    found: list[tuple[str, int, str]] = []
    for path, text in sorted(files.items()):
        text = searched_text(path, text)
        for n, line in enumerate((text or "").splitlines(), 1):
            stripped = line.strip()
            if stripped and not stripped.startswith(_COMMENT):
                found.append((path, n, stripped))
    return found


def _written(value: str, lines: list[tuple[str, int, str]]) -> list[str]:
    """``- path:n: `line` `` for each of ``lines`` that writes ``value`` (``RtnType::Float(0.0)``
    writes ``Float(0.0)``; ``MyFloat(0.0)`` does not)."""
    if not value:
        return []
    pattern = re.compile(rf"(?<![\w\"']){re.escape(value)}(?![\w\"'])")
    return [f"- {path}:{n}: `{line}`" for path, n, line in lines if value in line
            and pattern.search(line)]  # fmt: skip
