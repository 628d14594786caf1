"""SEARCH blocks that elide code with ``...`` or ``# ... existing code ...`` lines.

Two readings are supported, both strict: when REPLACE elides at the same places, each
(SEARCH piece, REPLACE piece) pair is applied in order; when REPLACE elides nothing,
the region from the first SEARCH piece to the last is replaced by REPLACE. Every
piece must match exactly one place (by the deterministic strategies), in order, with
one exception that cannot change the result: in the paired reading, a piece the edit
leaves unchanged (pure context) may occur several times, provided the changed pieces
are unique in the widest window any of its occurrences allows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from patchwright.edits.indent import fit_reindent
from patchwright.edits.match import (
    STRATEGIES,
    SUBSTRING_LEVEL,
    Alignment,
    Found,
    NotFound,
    Result,
    find_alignments,
    key_at,
    locate_strict,
)
from patchwright.edits.normalize import leading_ws

_ELISION = re.compile(
    r"^\s*(?:(?:#|//|/\*|<!--|--|;|\*)\s*)?(?:\.\.\.|…)"
    r"(?:\s+[\w\s,'()/:.-]*?)?\s*(?:\.\.\.|…)?\s*(?:\*/|-->)?\s*$"
)


def is_elision(line: str) -> bool:
    """True for a line that stands for omitted code (``...``, ``# ... existing code ...``)."""
    return _ELISION.match(line) is not None


def _pieces(lines: Sequence[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for line in lines:
        if is_elision(line):
            out.append([])
        else:
            out[-1].append(line)
    return out


def _blank(piece: Sequence[str]) -> bool:
    return not any(x.strip() for x in piece)


def _same(search: Sequence[str], replace: Sequence[str]) -> bool:
    """True when a piece is context only: REPLACE keeps its lines as they are."""
    return [x.rstrip() for x in search] == [x.rstrip() for x in replace]


def _shifted(res: NotFound, by: int) -> NotFound:
    """A piece's failure with line numbers counted in the whole file."""
    line = None if res.line is None else res.line + by
    return NotFound(res.message, [x + by for x in res.ambiguous], res.strategy, line)


def _at_level(file_lines: Sequence[str], piece: Sequence[str], level: int) -> list[Alignment]:
    key, ignore_blank = key_at(level)
    return find_alignments(file_lines, piece, key, ignore_blank)


def _align_piece(file_lines: Sequence[str], piece: Sequence[str]) -> tuple[list[Alignment], int]:
    """Alignments of a piece under the strictest key that finds any, and that key's level."""
    for level in range(len(STRATEGIES) + 1):
        found = _at_level(file_lines, piece, level)
        if found:
            return found, level
    return [], 0


def _earliest_end(found: Sequence[Alignment]) -> int:
    return min(max(a.values()) for a in found) + 1


def _paired(
    file_lines: Sequence[str], spieces: list[list[str]], rpieces: list[list[str]]
) -> Result:
    """Apply each (SEARCH piece, REPLACE piece) pair in order.

    The pieces of one SEARCH were written together, with the same defects: a piece
    that matches exactly somewhere while its sibling needed, say, indentation ignored
    may well be a coincidence. So a second pass requires every piece to be unique (or,
    for pure context, present) under the loosest key any piece needed.
    """
    res, level = _paired_pass(file_lines, spieces, rpieces, None)
    if isinstance(res, Found) and level > 0:
        res, _ = _paired_pass(file_lines, spieces, rpieces, level)
    return res


def _paired_pass(
    file_lines: Sequence[str],
    spieces: list[list[str]],
    rpieces: list[list[str]],
    level: int | None,
) -> tuple[Result, int]:
    work = list(file_lines)
    delta, floor, loosest = 0, 0, 0
    first: int | None = None
    last_end = 0
    pairs = list(zip(spieces, rpieces, strict=True))
    any_change = any(not _same(s, r) for s, r in pairs)
    for s, r in pairs:
        if _blank(s):
            if _blank(r):
                continue
            return NotFound("an elided REPLACE piece has no SEARCH lines to anchor it"), 0
        if any_change and _same(s, r):
            # Pure context: the output is the same whichever occurrence the model meant,
            # as long as one comes in order. The earliest one leaves the widest window,
            # so the changed pieces after it must be unique under every reading.
            if level is None:
                found, piece_level = _align_piece(work[floor:], s)
                loosest = max(loosest, piece_level)
            else:
                found = _at_level(work[floor:], s, level)
            if len(found) > 1:
                floor += _earliest_end(found)
                continue
        res = locate_strict(work[floor:], s, r)
        if isinstance(res, NotFound):
            return _shifted(res, floor - delta), 0
        loosest = max(loosest, res.level)
        if level is not None and res.level < min(level, SUBSTRING_LEVEL - 1):
            rivals = _at_level(work[floor:], s, level)
            if len(rivals) > 1:
                starts = [min(a.values()) + floor - delta + 1 for a in rivals]
                return NotFound(
                    f"a SEARCH piece between '...' markers matches {len(rivals)} places "
                    "once compared as loosely as its sibling pieces had to be",
                    starts,
                    res.strategy,
                ), 0
        res = Found(res.start + floor, res.end + floor, res.lines, res.strategy)
        first = res.start - delta if first is None else first
        last_end = res.end - delta
        work[res.start : res.end] = res.lines
        delta += len(res.lines) - (res.end - res.start)
        floor = res.start + len(res.lines)
    if first is None:
        return NotFound("the SEARCH block holds only elision markers"), 0
    return Found(first, last_end, work[first : last_end + delta], "elision"), loosest


def _spanning_aligns(
    file_lines: Sequence[str], pieces: list[list[str]], level: int | None
) -> tuple[list[Alignment], int] | NotFound:
    """One alignment per piece, in order, each unique (under ``level``, else its own),
    and the loosest level used."""
    aligns: list[Alignment] = []
    loosest = 0
    for piece in pieces:
        floor = max(aligns[-1].values()) + 1 if aligns else 0
        if level is None:
            found, used = _align_piece(file_lines[floor:], piece)
            loosest = max(loosest, used)
        else:
            found = _at_level(file_lines[floor:], piece, level)
        if len(found) != 1:
            what = "matches no lines" if not found else f"matches {len(found)} places"
            return NotFound(f"a SEARCH piece between '...' markers {what}")
        aligns.append({j: i + floor for j, i in found[0].items()})
    return aligns, loosest


def _spanning(
    file_lines: Sequence[str], spieces: list[list[str]], replace: Sequence[str]
) -> Result:
    pieces = [p for p in spieces if not _blank(p)]
    if not pieces:
        return NotFound("the SEARCH block holds only elision markers")
    first = _spanning_aligns(file_lines, pieces, None)
    if isinstance(first, NotFound):
        return first
    aligns, loosest = first
    if loosest > 0:  # as in the paired reading: unique under the loosest key used
        again = _spanning_aligns(file_lines, pieces, loosest)
        if isinstance(again, NotFound):
            return again
        aligns = again[0]
    search_lines = [x for p in spieces for x in p]
    pairs = []
    for piece, align in zip(pieces, aligns, strict=True):
        pairs += [(leading_ws(piece[j]), leading_ws(file_lines[i])) for j, i in align.items()]
    rule = fit_reindent(pairs, [*search_lines, *replace])
    if rule is None:
        return NotFound("the SEARCH pieces differ from the file in relative indentation")
    start, end = min(aligns[0].values()), max(aligns[-1].values()) + 1
    return Found(start, end, [rule.convert(x) for x in replace], "elision")


def locate_elided(
    file_lines: Sequence[str], search: Sequence[str], replace: Sequence[str]
) -> Result | None:
    """Apply a SEARCH with elision markers; None when it has none."""
    if not any(is_elision(x) for x in search):
        return None
    spieces = _pieces(search)
    rmarks = sum(1 for x in replace if is_elision(x))
    if rmarks == len(spieces) - 1:
        return _paired(file_lines, spieces, _pieces(replace))
    if rmarks == 0:
        return _spanning(file_lines, spieces, replace)
    return NotFound("SEARCH and REPLACE elide code ('...') at a different number of places")
