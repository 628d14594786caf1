"""What a person sees when patchwright itself fails: one line saying it is patchwright's bug,
where the whole traceback was written, and how to check the repository — never a bare
traceback, and under ``--json`` still one JSON object on stdout.

The traceback goes to ``crashes/`` in the user's patchwright state folder
(:func:`patchwright.workspace.journalkey.state_home`), not into the repository.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

from patchwright.workspace.journalkey import state_home

EXIT_INTERNAL = 70  # EX_SOFTWARE: an internal error (sysexits.h)


def report_crash(exc: BaseException, argv: list[str]) -> int:
    """Write the traceback of ``exc`` and tell the person what happened; the exit code."""
    text = "".join(traceback.format_exception(exc))
    saved = _save(text, argv)
    where = f"the traceback is in {saved}" if saved else "the traceback follows"
    line = (
        f"internal error: {type(exc).__name__}: {exc} — a bug in patchwright, not in your "
        f"repository; {where}. Check your repository with `git status` (and `patchwright undo` "
        "for the last kept change) before you run again."
    )
    if "--json" in argv:
        print(json.dumps({"outcome": "error", "error": line, "traceback": str(saved or "")}))
    print(f"patchwright: {line}", file=sys.stderr)
    if not saved:
        print(text, file=sys.stderr)
    return EXIT_INTERNAL


def _save(text: str, argv: list[str]) -> Path | None:
    try:
        folder = state_home() / "crashes"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{id(text):x}.txt"
        path.write_text(f"patchwright {' '.join(argv)}\n\n{text}", encoding="utf-8")
    except OSError:
        return None
    return path
