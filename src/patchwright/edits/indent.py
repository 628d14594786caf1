"""Re-indentation of REPLACE lines when the SEARCH matched at another indentation.

Given pairs ``(search_indent, file_indent)`` of lines that matched, find a rule that
maps the model's indentation onto the file's and apply it to the lines the model
added. Two rules, strictest first:

* ``indent_offset`` — every matched line differs by the same prefix (the model
  dropped or added a fixed amount of leading whitespace of the same kind);
* ``relative_indent`` — the indentation widths are related linearly (one-space or
  two-space indentation against four, spaces against tabs), so levels map onto levels.

No rule fits → ``None``: the strategy does not apply (it never guesses).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd

from patchwright.edits.normalize import leading_ws

Conv = Callable[[str], str]


@dataclass(frozen=True)
class Reindent:
    """A rule for converting added lines; ``kind`` is ``same``, ``indent_offset`` or ``relative_indent``."""

    kind: str
    convert: Conv


def _identity(line: str) -> str:
    return line


def _offset_rule(pairs: Sequence[tuple[str, str]]) -> Conv | None:
    adds = {f[: len(f) - len(s)] for s, f in pairs if f.endswith(s)}
    if len(adds) == 1 and all(f.endswith(s) for s, f in pairs):
        add = adds.pop()
        return lambda line: add + line if line.strip() else line
    cuts = {s[: len(s) - len(f)] for s, f in pairs if s.endswith(f)}
    if len(cuts) == 1 and all(s.endswith(f) for s, f in pairs):
        cut = cuts.pop()

        def strip_prefix(line: str) -> str:
            if not line.strip():
                return line
            return line[len(cut) :] if line.startswith(cut) else line.lstrip(" \t")

        return strip_prefix
    return None


def _width(indent: str, tab: int) -> int:
    return indent.count(" ") + tab * indent.count("\t")


def _unit(widths: Sequence[int], default: int) -> int:
    unit = 0
    for w in widths:
        unit = gcd(unit, w)
    return unit or default


def _relative_rule(pairs: Sequence[tuple[str, str]], model_lines: Sequence[str]) -> Conv | None:
    file_indents = [f for _, f in pairs]
    tabs = any("\t" in f for f in file_indents)
    if tabs and any(" " in f for f in file_indents):
        return None  # the file mixes tabs and spaces here: no safe rendering
    pts = [(_width(s, 4), _width(f, 1)) for s, f in pairs]
    xs = sorted({x for x, _ in pts})
    if len(xs) >= 2:
        lo = next(p for p in pts if p[0] == xs[0])
        hi = next(p for p in pts if p[0] == xs[-1])
        a = Fraction(hi[1] - lo[1], hi[0] - lo[0])
    else:
        model_unit = _unit([_width(leading_ws(x), 4) for x in model_lines], 4)
        file_unit = 1 if tabs else _unit([y for _, y in pts], 4)
        a = Fraction(file_unit, model_unit)
    if a <= 0:
        return None
    b = Fraction(pts[0][1]) - a * pts[0][0]
    if any(a * x + b != y for x, y in pts):
        return None
    char = "\t" if tabs else " "

    def convert(line: str) -> str:
        if not line.strip():
            return line
        body = line.lstrip(" \t")
        width = a * _width(leading_ws(line), 4) + b
        return char * max(0, round(width)) + body

    return convert


def fit_reindent(
    pairs: Sequence[tuple[str, str]], model_lines: Sequence[str] = ()
) -> Reindent | None:
    """Find the rule mapping model indentation onto file indentation, or None.

    ``pairs`` are (model indent, file indent) of matched non-blank lines; ``model_lines``
    are all lines the model wrote (SEARCH and REPLACE), used to guess its indent unit.
    """
    if all(s == f for s, f in pairs):
        return Reindent("same", _identity)
    offset = _offset_rule(pairs)
    if offset is not None:
        return Reindent("indent_offset", offset)
    relative = _relative_rule(pairs, model_lines)
    if relative is not None:
        return Reindent("relative_indent", relative)
    return None
