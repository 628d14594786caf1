"""Where a conflict-marker SEARCH/REPLACE block ends, decided by the block structure.

A REPLACE may hold lines that look like markers (a ``>>>>>>> REPLACE`` inside a
docstring, a ``=======`` heading underline). Such a block is not cut at its first
marker-like line: a ``>>>>>>> REPLACE`` line ends the block only when everything after
it, up to the end of the enclosing fence (or of the reply), is still well formed —
whole blocks and text, never a tail that closes nothing. The earliest such line wins,
so ordinary multi-block replies read as they always did. When no reading works, or the
only one would end the REPLACE with a duplicate of its closing marker, the block is
refused with a message instead of being cut.

Several ``=======`` lines in one block are kept as alternative readings: which one
divides SEARCH from REPLACE is settled against the file (``Edit.readings``, used by
:func:`patchwright.edits.apply.apply_one`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

HEAD = re.compile(r"^\s*<{5,9}\s*(?:SEARCH|ORIGINAL|FIND)\b.*$", re.I)
DIVIDER = re.compile(r"^\s*={5,9}(?:\s*[A-Za-z]+)?\s*$")
TAIL = re.compile(r"^\s*>{5,9}(?:\s*(?:REPLACE|UPDATED|NEW|END)\b.*)?\s*$", re.I)

_H, _D, _T = "H", "D", "T"


def marker_kind(line: str) -> str | None:
    """``H`` (head), ``D`` (divider), ``T`` (tail) or None for an ordinary line."""
    if HEAD.match(line):
        return _H
    if DIVIDER.match(line):
        return _D
    if TAIL.match(line):
        return _T
    return None


@dataclass(frozen=True)
class Block:
    """A block's head line, its candidate divider lines (first = the usual reading) and
    its tail line, as 0-based reply line indexes. ``longer``: a later ``>>>>>>> REPLACE``
    could also end it, the blocks between then being text of its REPLACE."""

    head: int
    dividers: tuple[int, ...]
    tail: int
    longer: bool = False


class _Structure:
    """The marker lines before ``limit`` (``markers``: reply line → kind, in order) and, for
    each, whether the reply from that marker on reads as well-formed blocks and text
    (computed once, back to front)."""

    def __init__(self, markers: Sequence[tuple[int, str]], limit: int) -> None:
        inside = markers[: bisect_left(markers, (limit, ""))]
        self.at = [line for line, _ in inside]
        self.kinds = [kind for _, kind in inside]
        n = len(self.at)
        self.ok = [True] * (n + 1)  # ok[m]: markers m.. are well formed
        good_tail = [False] * (n + 2)  # good_tail[m]: some tail at or after m leaves ok
        for m in range(n - 1, -1, -1):
            kind = self.kinds[m]
            if kind == _D:  # a stray ======= in prose is harmless
                self.ok[m] = self.ok[m + 1]
            elif kind == _T:  # a tail that closes no block is not
                self.ok[m] = False
            else:
                self.ok[m] = m + 1 < n and self.kinds[m + 1] == _D and good_tail[m + 2]
            good_tail[m] = (kind == _T and self.ok[m + 1]) or good_tail[m + 1]

    def next_start(self, m: int) -> int:
        """The first marker from ``m`` on that could start a block (a head followed by a
        divider), or the number of markers."""
        n = len(self.at)
        starts = (k for k in range(m, n - 1) if self.kinds[k] == _H and self.kinds[k + 1] == _D)
        return next(starts, n)

    def index(self, line: int) -> int:
        """The position in ``at`` of the first marker at or after reply line ``line``."""
        return bisect_left(self.at, line)


@dataclass(frozen=True)
class BlockError:
    """Why a block cannot be read, and the reply line to resume parsing at."""

    message: str
    resume: int
    no_tail: bool = False


class BlockReader:
    """Reads SEARCH/REPLACE blocks out of ``lines`` (the reply), caching the structure."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._cache: dict[int, _Structure] = {}
        self._markers: list[tuple[int, str]] | None = None

    def block(self, head: int, limit: int) -> Block | BlockError:
        """The block starting at ``lines[head]`` (a HEAD line), read within
        ``lines[:limit]`` (the end of the enclosing fence), or over the whole reply when
        no tail lies inside; a :class:`BlockError` says why it cannot be read."""
        found: Block | BlockError = BlockError("", limit)
        for lim in dict.fromkeys((limit, len(self.lines))):
            found = self._read(head, lim)
            if not (isinstance(found, BlockError) and found.no_tail):
                return found
        return found

    def _structure(self, limit: int) -> _Structure:
        if self._markers is None:
            kinds = ((i, marker_kind(x)) for i, x in enumerate(self.lines))
            self._markers = [(i, kind) for i, kind in kinds if kind is not None]
        if limit not in self._cache:
            self._cache[limit] = _Structure(self._markers, limit)
        return self._cache[limit]

    def _read(self, head: int, limit: int) -> Block | BlockError:
        where = f"SEARCH block at reply line {head + 1}"
        st = self._structure(limit)
        m = st.index(head)
        if m + 1 >= len(st.at):
            return BlockError(f"{where} is not terminated", limit, no_tail=True)
        if st.kinds[m + 1] != _D:
            at = st.at[m + 1]
            return BlockError(f"{where} has no ======= divider before line {at + 1}", at)
        tails = [k for k in range(m + 2, len(st.at)) if st.kinds[k] == _T]
        if not tails:
            message = f"{where} has no >>>>>>> REPLACE line; resend it whole"
            return BlockError(message, limit, no_tail=True)
        chosen = self._tail(st, m, tails, where)
        if isinstance(chosen, BlockError):
            return chosen
        dividers = tuple(st.at[k] for k in range(m + 1, chosen) if st.kinds[k] == _D)
        longer = any(st.ok[k + 1] for k in tails if k > chosen)
        return Block(head, dividers, st.at[chosen], longer)

    def _tail(self, st: _Structure, m: int, tails: list[int], where: str) -> int | BlockError:
        """Which of the candidate ``tails`` (marker positions) ends the block at marker
        ``m``: the first after which the reply stays well formed, unless that cannot be
        told apart from another reading."""
        chosen = next((k for k in tails if st.ok[k + 1]), None)
        if chosen is None:  # a later part of the reply is broken; it gets its own message
            chosen = tails[0]
            if sum(1 for k in tails if k < st.next_start(chosen)) > 1:
                return BlockError(
                    f"{where}: its REPLACE holds a marker line (reply line {st.at[chosen] + 1})"
                    " and no reading of the reply tells which >>>>>>> REPLACE line ends the "
                    "block; resend the change as a unified diff or as the whole file",
                    st.at[chosen] + 1,
                )
        skipped = [k for k in tails if k < chosen]
        broken = _broken_head(st, m + 2, chosen) if skipped else None
        if broken is not None:  # reading past a tail would swallow a malformed block
            return BlockError(
                f"{where}: it ends at reply line {st.at[chosen] + 1} only if its REPLACE holds "
                f"the <<<<<<< SEARCH line {broken + 1}, which starts no complete block, so "
                "where the block ends cannot be told; resend the change as a unified diff or "
                "as the whole file",
                st.at[chosen] + 1,
            )
        if skipped and _repeated(self.lines, st.at[skipped[-1]], st.at[chosen]):
            first, second = st.at[skipped[-1]] + 1, st.at[chosen] + 1
            return BlockError(
                f"{where}: reply lines {first} and {second} are the same >>>>>>> REPLACE line "
                "with nothing between them, so it cannot be told whether the first is text of "
                "the REPLACE or a repeated marker; resend the block with its closing marker once",
                second,
            )
        return chosen


def _broken_head(st: _Structure, start: int, end: int) -> int | None:
    """The reply line of the first head among markers ``start:end`` that is not followed,
    before ``end``, by a divider and then a tail; None when every head starts a block."""
    kinds = st.kinds[start:end]
    for k, kind in enumerate(kinds):
        if kind != _H:
            continue
        divider = next((j for j in range(k + 1, len(kinds)) if kinds[j] == _D), None)
        if divider is None or _T not in kinds[divider + 1 :]:
            return st.at[start + k]
    return None


def _repeated(lines: Sequence[str], first: int, second: int) -> bool:
    """Two identical marker lines with only blank lines between them."""
    if any(x.strip() for x in lines[first + 1 : second]):
        return False
    return lines[first].split() == lines[second].split()
