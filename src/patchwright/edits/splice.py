"""Lines with some spans put back in place of others: how a reply's definitions go into a
file (``dropped`` for Python, ``brace_merge`` for the brace languages)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def spliced(lines: Sequence[str], replacements: Mapping[int, tuple[int, list[str]]]) -> list[str]:
    """``lines`` with each ``start: (stop, new)`` of ``replacements`` putting ``new`` in place
    of ``lines[start:stop]``."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if i in replacements:
            stop, text = replacements[i]
            out += text
            i = stop
        else:
            out.append(lines[i])
            i += 1
    return out
