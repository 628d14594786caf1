"""The repo map: a token-budgeted outline of the most relevant definitions.

Definitions are taken in PageRank order (see ``graph``) and rendered grouped by file, as
their signatures indented by nesting depth, bodies elided. The number of definitions is
chosen by binary search so the map uses between 90% and 100% of the token budget whenever
the repository has that much to show.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence

from patchwright.index.graph import Ranking
from patchwright.index.model import Definition, FileSymbols

TokenCounter = Callable[[str], int]


def approx_tokens(text: str) -> int:
    """A model-agnostic token estimate: about four characters per token for code."""
    return math.ceil(len(text) / 4)


def ordered_definitions(
    symbols: Mapping[str, FileSymbols],
    ranking: Ranking,
    focus_files: Collection[str] = (),
    mentioned: Collection[str] = (),
) -> list[Definition]:
    """All definitions, most relevant first (ties broken by path and line).

    Definitions the focus names come first, then those of focus files, then the rest by
    the rank that flows into them along references."""
    top = max(ranking.definitions.values(), default=0.0) + 1.0
    scored = []
    for path, fs in symbols.items():
        file_rank = ranking.files.get(path, 0.0)
        in_focus = path in focus_files
        for d in fs.definitions:
            score = ranking.definitions.get((path, d.name), 0.0) + file_rank * 1e-6
            if d.name in mentioned:
                score += 2 * top
            elif in_focus:
                score += top
            scored.append((-score, path, d.line, d))
    scored.sort(key=lambda item: item[:3])
    return [item[3] for item in scored]


def with_parents(
    definitions: Sequence[Definition], symbols: Mapping[str, FileSymbols]
) -> list[Definition]:
    """``definitions`` plus the definitions enclosing them (a method's class), for context."""
    chosen = {(d.path, d.line, d.name): d for d in definitions}
    for d in definitions:
        fs = symbols.get(d.path)
        for outer in fs.definitions if fs else ():
            if outer.line < d.line and d.end_line <= outer.end_line:
                chosen.setdefault((outer.path, outer.line, outer.name), outer)
    return list(chosen.values())


def render(definitions: Sequence[Definition]) -> str:
    """Outline of ``definitions`` grouped by file in path order, lines in source order."""
    by_file: dict[str, list[Definition]] = defaultdict(list)
    for d in definitions:
        by_file[d.path].append(d)
    out: list[str] = []
    for path in sorted(by_file):
        defs = sorted(by_file[path], key=lambda d: (d.line, -d.end_line))
        out.append(f"{path}:")
        open_ends: list[int] = []  # end lines of the definitions enclosing the current one
        for d in defs:
            while open_ends and open_ends[-1] < d.line:
                open_ends.pop()
            indent = "  " * (len(open_ends) + 1)
            open_ends.append(d.end_line)
            sig = d.signature or f"{d.kind} {d.name}"
            elided = " …" if d.end_line > d.line else ""
            out.append(f"{indent}{d.line}: {sig}{elided}")
    return "\n".join(out) + ("\n" if out else "")


def fit(
    ordered: Sequence[Definition],
    tokens: int,
    count_tokens: TokenCounter = approx_tokens,
    symbols: Mapping[str, FileSymbols] | None = None,
) -> str:
    """The longest prefix of ``ordered`` whose rendering (with parents) fits in ``tokens``."""
    if tokens <= 0 or not ordered:
        return ""

    def draw(prefix: Sequence[Definition]) -> str:
        return render(with_parents(prefix, symbols) if symbols else prefix)

    full = draw(ordered)
    if count_tokens(full) <= tokens:
        return full
    lo, hi = 0, len(ordered)  # invariant: draw(ordered[:lo]) fits
    best = ""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        text = draw(ordered[:mid])
        if count_tokens(text) <= tokens:
            lo, best = mid, text
        else:
            hi = mid - 1
    return best
