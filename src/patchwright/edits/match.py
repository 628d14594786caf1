"""Layered matching of a SEARCH block against a file, strictest strategy first.

Every strategy compares *keys* of lines (the line itself, the line without trailing
whitespace, without indentation, with Unicode punctuation straightened, ...). The
first strategy that finds the SEARCH decides: one location → the edit applies there;
several → the block fails as ambiguous (a coarser key could only find more). Relaxed
strategies never copy the model's version of unchanged lines into the file: the
change the model made (SEARCH → REPLACE) is transplanted onto the file's own lines,
and only the lines it added are re-indented to the file's style.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from itertools import pairwise

from patchwright.edits.indent import Conv, fit_reindent
from patchwright.edits.normalize import (
    ascii_punctuation,
    has_fancy_punctuation,
    leading_ws,
    nospace_key,
    unicode_key,
)
from patchwright.edits.trailing import restore_trailing_ws

Key = Callable[[str], str]
Alignment = dict[int, int]  # search line index -> file line index


@dataclass(frozen=True)
class Found:
    """SEARCH found: ``lines`` replace ``file[start:end]``; ``strategy`` names how.

    ``level`` ranks the line key that placed it: 0 exact, ``i + 1`` for
    ``STRATEGIES[i]``, ``SUBSTRING_LEVEL`` for a fragment of a line.
    """

    start: int
    end: int
    lines: list[str]
    strategy: str
    level: int = 0


@dataclass(frozen=True)
class NotFound:
    """SEARCH not placed. ``ambiguous`` lists 1-based lines of competing matches."""

    message: str
    ambiguous: list[int] = field(default_factory=list)
    strategy: str | None = None
    line: int | None = None  # 1-based line where it nearly matched, when known


Result = Found | NotFound


@dataclass(frozen=True)
class _Strategy:
    name: str
    key: Key
    ignore_blank: bool


STRATEGIES: tuple[_Strategy, ...] = (
    _Strategy("trailing_whitespace", str.rstrip, False),
    _Strategy("blank_lines", str.rstrip, True),
    _Strategy("indentation", str.strip, True),
    _Strategy("unicode", unicode_key, True),
    _Strategy("whitespace_insensitive", nospace_key, True),
)
SUBSTRING_LEVEL = len(STRATEGIES) + 1
STRATEGY_NAMES = (
    "exact",
    "trailing_whitespace",
    "blank_lines",
    "indent_offset",
    "relative_indent",
    "unicode",
    "whitespace_insensitive",
    "substring",
    "elision",
    "fuzzy",
)


def split_lines(text: str) -> list[str]:
    """Lines of a SEARCH/REPLACE text: one trailing newline is a terminator, not a line."""
    if text == "":
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return [line.rstrip("\r") for line in text.split("\n")]


def _occurrences(hay: Sequence[str], needle: Sequence[str]) -> list[int]:
    if not needle or len(needle) > len(hay):
        return []
    first, m = needle[0], len(needle)
    out = []
    for i in range(len(hay) - m + 1):
        if hay[i] == first and list(hay[i : i + m]) == list(needle):
            out.append(i)
    return out


def key_at(level: int) -> tuple[Key, bool]:
    """The line key (and whether blank lines are skipped) of a strategy level.

    Each key coarsens the one before, so matches at a level include every match at
    the stricter levels. The substring level has no line key: the loosest one stands in.
    """
    if level <= 0:
        return (lambda x: x), False
    strat = STRATEGIES[min(level, len(STRATEGIES)) - 1]
    return strat.key, strat.ignore_blank


def find_alignments(
    file_lines: Sequence[str], search: Sequence[str], key: Key, ignore_blank: bool
) -> list[Alignment]:
    """Every place where ``search`` matches ``file_lines`` under ``key``, as alignments."""
    fkeys = [key(x) for x in file_lines]
    skeys = [key(x) for x in search]
    if ignore_blank:
        fpos = [i for i, k in enumerate(fkeys) if k]
        spos = [j for j, k in enumerate(skeys) if k]
    else:
        fpos = list(range(len(fkeys)))
        spos = list(range(len(skeys)))
    if not spos:
        return []
    fk = [fkeys[i] for i in fpos]
    sk = [skeys[j] for j in spos]
    found = [{spos[j]: fpos[t + j] for j in range(len(sk))} for t in _occurrences(fk, sk)]
    if ignore_blank:
        for align in found:
            _pair_blanks(align, skeys, fkeys)
    return found


def _pair_blanks(align: Alignment, skeys: Sequence[str], fkeys: Sequence[str]) -> None:
    """Align blank SEARCH lines with blank file lines between the same matched lines."""
    pairs = sorted(align.items())
    for (j1, i1), (j2, i2) in pairwise(pairs):
        sblank = [j for j in range(j1 + 1, j2) if not skeys[j]]
        fblank = [i for i in range(i1 + 1, i2) if not fkeys[i]]
        for j, i in zip(sblank, fblank, strict=False):
            align[j] = i


def pick_unique(starts: Sequence[int], hint: int | None) -> int | None:
    """Index of the one candidate to use: the only one, or the unique nearest to ``hint``."""
    if len(starts) == 1:
        return 0
    if hint is None or not starts:
        return None
    dist = [abs(s - (hint - 1)) for s in starts]
    best = min(dist)
    return dist.index(best) if dist.count(best) == 1 else None


def transplant(
    file_lines: Sequence[str],
    span: tuple[int, int],
    search: Sequence[str],
    replace: Sequence[str],
    align: Alignment,
    convert: Conv,
) -> list[str]:
    """Apply the model's change (search → replace) to the file's own lines in ``span``.

    Unchanged lines keep the file's text; lines the model added pass through ``convert``
    (re-indentation); file lines the SEARCH skipped (extra blanks, ...) are kept.
    """
    start, end = span
    kept = [False] * len(search)
    inserts: dict[int, list[str]] = {}
    skeys, rkeys = [x.rstrip() for x in search], [x.rstrip() for x in replace]
    ops = SequenceMatcher(None, skeys, rkeys, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for i in range(i1, i2):
                kept[i] = True
        elif j2 > j1:
            inserts.setdefault(i1, []).extend(convert(x) for x in replace[j1:j2])
    anchor = [end] * (len(search) + 1)
    for i in range(len(search) - 1, -1, -1):
        anchor[i] = align.get(i, anchor[i + 1])
    last = -1
    for i in range(len(search)):
        if i in align:
            last = align[i]
        elif last >= 0:
            anchor[i] = last + 1
    at: dict[int, list[str]] = {}
    for i in sorted(inserts):
        at.setdefault(anchor[i], []).extend(inserts[i])
    dropped = {align[i] for i in range(len(search)) if not kept[i] and i in align}
    out: list[str] = []
    added: list[bool] = []
    for j in range(start, end):
        new = at.pop(j, [])
        out.extend(new)
        added.extend([True] * len(new))
        if j not in dropped:
            out.append(file_lines[j])
            added.append(False)
    new = at.pop(end, [])
    out.extend(new)
    added.extend([True] * len(new))
    if not any(x != x.rstrip() for x in search):
        restore_trailing_ws(out, added, file_lines[:start], file_lines[end:])
    return out


def _exact(file_lines: Sequence[str], search: Sequence[str]) -> list[int]:
    return _occurrences(file_lines, search)


_WORD = re.compile(r"\w")


def _substring(
    file_lines: Sequence[str], search: Sequence[str], replace: Sequence[str]
) -> Result | None:
    """A single-line SEARCH that is a fragment of one line (word boundaries respected)."""
    if len(search) != 1 or len(replace) > 1 or not search[0].strip():
        return None
    needle = search[0]
    hits: list[tuple[int, int]] = []
    for i, line in enumerate(file_lines):
        pos = line.find(needle)
        while pos != -1:
            before = line[pos - 1] if pos else ""
            after = line[pos + len(needle) : pos + len(needle) + 1]
            if not (
                (before and _WORD.match(before) and _WORD.match(needle[0]))
                or (after and _WORD.match(after) and _WORD.match(needle[-1]))
            ):
                hits.append((i, pos))
            pos = line.find(needle, pos + 1)
    if not hits:
        return None
    if len(hits) > 1:
        return NotFound(
            f"the SEARCH text occurs {len(hits)} times", [i + 1 for i, _ in hits], "substring"
        )
    i, pos = hits[0]
    line = file_lines[i]
    new = line[:pos] + (replace[0] if replace else "") + line[pos + len(needle) :]
    return Found(i, i + 1, [new] if new.strip() or replace else [], "substring", SUBSTRING_LEVEL)


def changed_lines(search: Sequence[str], replace: Sequence[str]) -> set[int]:
    """Indexes of SEARCH lines the model changed or deleted (not kept as they were)."""
    out: set[int] = set()
    skeys, rkeys = [x.rstrip() for x in search], [x.rstrip() for x in replace]
    ops = SequenceMatcher(None, skeys, rkeys, autojunk=False).get_opcodes()
    for tag, i1, i2, _, _ in ops:
        if tag != "equal":
            out.update(range(i1, i2))
    return out


def _first_line_unindented(
    search: Sequence[str], replace: Sequence[str], file_lines: Sequence[str], align: Alignment
) -> bool:
    """The model copied a selection starting mid-line: its first line lost its indentation."""
    return (
        0 in align
        and leading_ws(search[0]) == ""
        and leading_ws(file_lines[align[0]]) != ""
        and (not replace or leading_ws(replace[0]) == "")
        and any(leading_ws(x) for x in search[1:] if x.strip())
    )


def _relaxed(
    file_lines: Sequence[str],
    search: Sequence[str],
    replace: Sequence[str],
    strat: _Strategy,
) -> Result | None:
    """One relaxed key: it applies only where exactly one place qualifies.

    No tie-breaking here, not even by a diff's line number: a relaxed key that finds
    two places has no evidence for either, and a wrong guess edits the wrong code.
    """
    aligns = find_alignments(file_lines, search, strat.key, strat.ignore_blank)
    if not aligns:
        return None
    starts = [min(a.values()) for a in aligns]
    pick = 0 if len(aligns) == 1 else None
    if pick is None:
        return NotFound(
            f"the SEARCH text matches {len(aligns)} places (strategy {strat.name})",
            [s + 1 for s in starts],
            strat.name,
        )
    align = aligns[pick]
    pairs = [
        (leading_ws(search[j]), leading_ws(file_lines[i]))
        for j, i in align.items()
        if search[j].strip()
    ]
    rule = fit_reindent(pairs, [*search, *replace])
    if rule is None and _first_line_unindented(search, replace, file_lines, align):
        indent = leading_ws(file_lines[align[0]])
        search = [indent + search[0], *search[1:]]
        replace = [indent + replace[0], *replace[1:]] if replace else replace
        rule = fit_reindent(pairs[1:] or pairs, [*search, *replace])
    if rule is None:
        return NotFound(
            "the SEARCH lines match but their relative indentation differs from the file",
            [],
            strat.name,
            starts[pick] + 1,
        )
    name = strat.name
    if strat.name == "indentation":
        name = "blank_lines" if rule.kind == "same" else rule.kind
    convert = rule.convert
    window = file_lines[min(align.values()) : max(align.values()) + 1]
    if strat.name in ("unicode", "whitespace_insensitive") and not any(
        has_fancy_punctuation(x) for x in window
    ):
        base = convert

        def convert(line: str) -> str:
            return ascii_punctuation(base(line))

    span = (min(align.values()), max(align.values()) + 1)
    lines = transplant(file_lines, span, search, replace, align, convert)
    return Found(*span, lines, name, STRATEGIES.index(strat) + 1)


def locate_lines(
    file_lines: Sequence[str],
    search: Sequence[str],
    replace: Sequence[str],
    hint: int | None = None,
) -> Result:
    """The whole-line strategies only: exact, then each relaxed key in turn.

    ``hint`` (a diff hunk's 1-based line) breaks a tie between exact occurrences only.
    """
    starts = _exact(file_lines, search)
    if starts:
        pick = pick_unique(starts, hint)
        if pick is None:
            return NotFound(
                f"the SEARCH text occurs {len(starts)} times", [s + 1 for s in starts], "exact"
            )
        s = starts[pick]
        return Found(s, s + len(search), list(replace), "exact")
    for strat in STRATEGIES:
        res = _relaxed(file_lines, search, replace, strat)
        if res is not None:
            return res
    return NotFound("no lines of the file match the SEARCH text")


def locate_strict(
    file_lines: Sequence[str],
    search: Sequence[str],
    replace: Sequence[str],
    hint: int | None = None,
) -> Result:
    """Run the deterministic strategies (everything but elision and fuzzy)."""
    if not any(x.strip() for x in search):
        return NotFound("the SEARCH block is blank")
    res = locate_lines(file_lines, search, replace, hint)
    if isinstance(res, Found) or res.ambiguous or res.line is not None:
        return res
    sub = _substring(file_lines, search, replace)
    if sub is not None:
        return sub
    return NotFound("no lines of the file match the SEARCH text")
