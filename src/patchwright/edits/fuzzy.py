"""Line-anchored fuzzy matching (rapidfuzz), the last and most careful strategy.

Windows of whole file lines are scored against the SEARCH block (keys normalised as
in the ``unicode`` strategy, blank lines ignored). The best window is used only when
it scores above ``THRESHOLD`` and no window elsewhere comes within ``MARGIN`` of it:
ambiguity fails. The same scan, without a cut-off, finds the "did you mean" lines
for failure messages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from rapidfuzz import fuzz

from patchwright.edits.indent import fit_reindent
from patchwright.edits.match import Alignment, Found, NotFound, Result, changed_lines, transplant
from patchwright.edits.normalize import leading_ws, unicode_key

THRESHOLD = 92.0
MARGIN = 6.0
MIN_CHARS = 40
PAIR_SIMILARITY = 60.0


@dataclass(frozen=True)
class Window:
    """File lines ``start:end`` (0-based, end exclusive) and their similarity (0-100)."""

    start: int
    end: int
    score: float


def _nonblank(lines: Sequence[str]) -> tuple[list[int], list[str]]:
    pos, keys = [], []
    for i, line in enumerate(lines):
        k = unicode_key(line)
        if k:
            pos.append(i)
            keys.append(k)
    return pos, keys


def scan(
    file_lines: Sequence[str], search: Sequence[str], *, cutoff: float, spread: int = 1
) -> list[Window]:
    """All windows scoring at least ``cutoff``, best first."""
    fpos, fkeys = _nonblank(file_lines)
    _, skeys = _nonblank(search)
    if not skeys or not fkeys:
        return []
    needle = "\n".join(skeys)
    m = len(skeys)
    out: list[Window] = []
    for k in range(max(1, m - spread), m + spread + 1):
        for t in range(0, len(fkeys) - k + 1):
            score = fuzz.ratio(needle, "\n".join(fkeys[t : t + k]), score_cutoff=cutoff)
            # Below the cut-off rapidfuzz answers 0, but with cutoff 0 a 0 is a real score.
            if score >= cutoff:
                out.append(Window(fpos[t], fpos[t + k - 1] + 1, score))
    if not out and len(fkeys) < m - spread:
        score = fuzz.ratio(needle, "\n".join(fkeys))
        if score >= cutoff:
            out.append(Window(fpos[0], fpos[-1] + 1, score))
    out.sort(key=lambda w: (-w.score, w.start))
    return out


def closest(file_lines: Sequence[str], search: Sequence[str]) -> Window | None:
    """The window most similar to ``search`` (for "did you mean"), or None for an empty file."""
    found = scan(file_lines, search, cutoff=0.0, spread=0)
    return found[0] if found else None


def _align(search: Sequence[str], window: Sequence[str], offset: int) -> Alignment:
    skeys = [unicode_key(x) for x in search]
    wkeys = [unicode_key(x) for x in window]
    align: Alignment = {}
    matcher = SequenceMatcher(None, skeys, wkeys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for d in range(i2 - i1):
                a, b = skeys[i1 + d], wkeys[j1 + d]
                if a and b and (tag == "equal" or fuzz.ratio(a, b) >= PAIR_SIMILARITY):
                    align[i1 + d] = offset + j1 + d
    return align


_NAME = re.compile(r"[A-Za-z_][\w-]*")


def _names(line: str) -> set[str]:
    return set(_NAME.findall(unicode_key(line)))


def _stale_names_used(
    file_lines: Sequence[str],
    span: tuple[int, int],
    search: Sequence[str],
    replace: Sequence[str],
    align: Alignment,
) -> list[str]:
    """Names the SEARCH context has but the file lacks, which the added lines use.

    A fuzzy match whose context says ``self.cache`` where the file says
    ``self.user_cache`` places the edit correctly, but the model's new lines would
    reference the stale name: the code it meant is not the code it wrote.
    """
    window = file_lines[span[0] : span[1]]
    everywhere = set().union(*(_names(x) for x in file_lines))
    stale: set[str] = set()
    for j, line in enumerate(search):
        if j in align:
            if unicode_key(line) != unicode_key(file_lines[align[j]]):
                stale |= _names(line) - _names(file_lines[align[j]])
        elif line.strip():
            stale |= _names(line) - set().union(*(_names(x) for x in window))
    stale -= everywhere
    if not stale:
        return []
    old = {x.rstrip() for x in search}
    added = set().union(*(_names(x) for x in replace if x.rstrip() not in old))
    return sorted(stale & added)


def locate_fuzzy(
    file_lines: Sequence[str], search: Sequence[str], replace: Sequence[str]
) -> Result | None:
    """Place ``search`` by similarity; None when nothing comes close enough."""
    if sum(len(x.strip()) for x in search) < MIN_CHARS or sum(1 for x in search if x.strip()) < 2:
        return None
    found = scan(file_lines, search, cutoff=THRESHOLD - MARGIN)
    if not found or found[0].score < THRESHOLD:
        return None
    best = found[0]
    rivals = [w for w in found[1:] if w.end <= best.start or w.start >= best.end]
    if rivals:
        return NotFound(
            f"the SEARCH text is similar to {len(rivals) + 1} places",
            sorted({best.start + 1, *(w.start + 1 for w in rivals)}),
            "fuzzy",
        )
    align = _align(search, file_lines[best.start : best.end], best.start)
    if not align:
        return None
    stale = [
        j + 1
        for j in sorted(changed_lines(search, replace))
        if search[j].strip()
        and (j not in align or unicode_key(search[j]) != unicode_key(file_lines[align[j]]))
    ]
    if stale:
        return NotFound(
            f"the SEARCH text is {best.score:.0f}% similar to lines {best.start + 1}-{best.end}, "
            f"but line(s) {', '.join(map(str, stale))} of the SEARCH block, which the edit "
            "changes, differ from the file (stale context?)",
            [],
            "fuzzy",
            best.start + 1,
        )
    stale_names = _stale_names_used(file_lines, (best.start, best.end), search, replace, align)
    if stale_names:
        return NotFound(
            f"the SEARCH text is {best.score:.0f}% similar to lines {best.start + 1}-{best.end}, "
            f"but it is stale: the new lines use {', '.join(stale_names)}, which the file "
            "does not have there (renamed?). Copy the current lines from the file and resend.",
            [],
            "fuzzy",
            best.start + 1,
        )
    same = {j: i for j, i in align.items() if unicode_key(search[j]) == unicode_key(file_lines[i])}
    pairs = [(leading_ws(search[j]), leading_ws(file_lines[i])) for j, i in (same or align).items()]
    rule = fit_reindent(pairs, [*search, *replace])
    if rule is None:
        return NotFound(
            "the closest lines differ in relative indentation", [], "fuzzy", best.start + 1
        )
    span = (best.start, best.end)
    lines = transplant(file_lines, span, search, replace, align, rule.convert)
    return Found(best.start, best.end, lines, "fuzzy")
