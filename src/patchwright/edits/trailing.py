"""Trailing whitespace for the lines an edit adds, when the model's SEARCH lost all of it."""

from __future__ import annotations

from collections.abc import Sequence


def _trailing_ws(line: str) -> str:
    return line[len(line.rstrip()) :]


def restore_trailing_ws(
    out: list[str], added: Sequence[bool], before: Sequence[str], after: Sequence[str]
) -> None:
    """Added lines end like their neighbours when the model's SEARCH lost all trailing ws.

    A file whose lines end in whitespace on purpose (Markdown hard breaks) gets an
    added line ending the same way when the nearest non-blank file lines above and
    below it both end with that same whitespace, as re-indentation gives added lines
    the file's indentation. Anything less consistent leaves the line as written.
    """
    kept = [(i, x) for i, x in enumerate(out) if not added[i] and x.strip()]
    above_all = next((x for x in reversed(before) if x.strip()), None)
    below_all = next((x for x in after if x.strip()), None)
    for i, line in enumerate(out):
        if not added[i] or not line.strip() or line != line.rstrip():
            continue
        above = next((x for k, x in reversed(kept) if k < i), above_all)
        below = next((x for k, x in kept if k > i), below_all)
        if above is not None and below is not None:
            ends = _trailing_ws(above)
            if ends and ends == _trailing_ws(below):
                out[i] = line + ends
