"""Unified diffs as git writes them: the one place a change is rendered for people, for the
model and for ``git apply``.

``a/`` and ``b/`` labels, ``/dev/null`` for the side where the file does not exist, and the
``\\ No newline at end of file`` marker after a last line that has no newline — so the diff
says exactly what changed, the final newline included, and applies as it reads.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

NO_NEWLINE = "\\ No newline at end of file\n"


def file_diff(path: str, old: str | None, new: str | None, *, context: int = 3) -> str:
    """The diff of one file from ``old`` to ``new`` (None: the file does not exist on that
    side); empty when the text is the same."""
    if (old or "") == (new or "") and (old is None) == (new is None):
        return ""
    lines = difflib.unified_diff(
        (old or "").splitlines(keepends=True),
        (new or "").splitlines(keepends=True),
        "/dev/null" if old is None else f"a/{path}",
        "/dev/null" if new is None else f"b/{path}",
        n=context,
    )
    return "".join(line if line.endswith("\n") else line + "\n" + NO_NEWLINE for line in lines)


def unified_diff(changes: Iterable[tuple[str, str | None, str | None]], *, context: int = 3) -> str:
    """The diff of several files: ``(path, old, new)`` each, in the order given."""
    return "".join(file_diff(path, old, new, context=context) for path, old, new in changes)
