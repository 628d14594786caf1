"""One entry point for placing a SEARCH block: strict strategies, then elision, then fuzzy."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from patchwright.edits.elision import locate_elided
from patchwright.edits.fuzzy import locate_fuzzy
from patchwright.edits.match import Found, NotFound, Result, locate_lines, locate_strict


def locate(
    file_lines: Sequence[str],
    search: Sequence[str],
    replace: Sequence[str],
    hint: int | None = None,
) -> Result:
    """Find where ``search`` goes and what the file lines there become.

    Ambiguity found by a strict strategy is final: a looser one could only find more.
    """
    strict = locate_strict(file_lines, search, replace, hint)
    if isinstance(strict, Found) or strict.ambiguous:
        return strict
    elided = locate_elided(file_lines, search, replace)
    if elided is not None:
        return elided
    fuzzy = locate_fuzzy(file_lines, search, replace)
    if fuzzy is not None:
        return fuzzy
    return strict


def already_present(
    file_lines: Sequence[str], search: Sequence[str], replace: Sequence[str]
) -> bool:
    """True when the block looks applied already: REPLACE is in the file, SEARCH is not.

    REPLACE must be found at exactly one place by a whole-line strategy, and be either
    substantial (two or more lines, or 40+ characters) or a close edit of SEARCH, so a
    short common line ("x", "pass") never passes for an applied edit.
    """
    body = [x.strip() for x in replace if x.strip()]
    if not body or body == [x.strip() for x in search if x.strip()]:
        return False
    substantial = len(body) >= 2 or len(body[0]) >= 40
    if not substantial and fuzz.ratio("\n".join(search), "\n".join(replace)) < 60:
        return False
    res = locate_lines(file_lines, replace, replace)
    return isinstance(res, Found)


def covers_match(
    file_lines: Sequence[str], search: Sequence[str], replace: Sequence[str], found: Found
) -> bool:
    """True when the file already holds REPLACE around the place SEARCH matched.

    That is the signature of a block applied before (REPLACE extends SEARCH): applying
    it again would duplicate the added lines. Only the lines around the match are
    searched (a copy of REPLACE elsewhere in the file does not make this one applied).
    """
    if len([x for x in replace if x.strip()]) <= len([x for x in search if x.strip()]):
        return False
    # Only the neighbourhood of the match can hold a REPLACE that covers it.
    reach = 2 * len(replace) + 20
    lo = max(0, found.start - reach)
    res = locate_lines(file_lines[lo : found.end + reach], replace, replace)
    return isinstance(res, Found) and lo + res.start <= found.start and lo + res.end >= found.end


__all__ = ["Found", "NotFound", "already_present", "covers_match", "locate"]
