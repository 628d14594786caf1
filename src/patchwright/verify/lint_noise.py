"""The compiler warnings a failed test run's report can do without.

Every HumanEvalFix Rust task opens with ``use std::{slice::Iter, …, ascii::AsciiExt};``, so
every ``cargo test`` prints three warning blocks (unused imports, a deprecated trait) and a
``generated 3 warnings`` line before its tests run — 20 lines of a 30-line report, and their
``--> src/lib.rs:3:11`` pointers came first in "Where those errors point in the change",
ahead of the error or the hung test that mattered (Rust-76: a loop that never ended was
reported with the imports quoted). Warnings that can say something about a wrong body
(``unused variable``, ``unreachable code``, ``value assigned is never read``) are kept.
"""

from __future__ import annotations

import re

# a warning block whose subject is the file's header, never the function being fixed
_NOISE = re.compile(r"warning: (?:unused imports?:|use of deprecated )")
# cargo's closing count: warning: `crate` (lib test) generated 3 warnings (run `cargo fix …`)
_SUMMARY = re.compile(r"warning: `[^`]+` \([^)]*\) generated \d+ warnings?\b.*")
# a line that carries on rustc's block: its pointer, gutter, numbered source, notes
_CONTINUED = re.compile(r"\s*(?:-->|\||\d+\s*\||=\s|\.\.\.)")


def without_lint_noise(lines: list[str]) -> list[str]:
    """``lines`` without rustc's warning blocks about unused or deprecated imports (up to
    and including the blank line that ends each) and cargo's ``generated N warnings``."""
    kept: list[str] = []
    skipping = False
    for line in lines:
        bare = line.strip()
        if skipping:
            if not bare:
                skipping = False
                continue
            if _CONTINUED.match(line):
                continue
            skipping = False
        if _NOISE.match(bare):
            skipping = True
        elif not _SUMMARY.fullmatch(bare):
            kept.append(line)
    return kept
