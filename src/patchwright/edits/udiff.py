"""Unified diffs (``--- a/x`` / ``+++ b/x`` / ``@@``) turned into SEARCH/REPLACE edits.

Each hunk becomes one edit whose SEARCH is its context and removed lines and whose
REPLACE is its context and added lines; the hunk's old start line is kept only as a
tie-breaking hint. ``--- /dev/null`` creates a file, ``+++ /dev/null`` deletes one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from patchwright.edits.types import Edit

_HUNK = re.compile(r"^@@+\s*-?(\d+)?")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
NULL = "/dev/null"


def is_file_header(lines: Sequence[str], i: int) -> bool:
    """True when ``lines[i]`` starts a ``---``/``+++`` file header."""
    return lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _header_path(line: str) -> str:
    return line[4:].split("\t")[0].strip()


@dataclass
class DiffFile:
    """The edits of one file section of a diff and the index of the line after it."""

    edits: list[Edit] = field(default_factory=list)
    end: int = 0
    path: str = ""


def _hunk_lines(lines: Sequence[str], j: int) -> tuple[list[str], int]:
    body: list[str] = []
    while j < len(lines):
        line = lines[j]
        if line.startswith("@@") or is_file_header(lines, j) or _FENCE.match(line):
            break
        if line.startswith("diff --git"):
            break
        if line and line[0] not in " +-\\":
            break
        body.append(line)
        j += 1
    while body and body[-1] == "":
        body.pop()
    return body, j


def _sides(body: Sequence[str]) -> tuple[str, str]:
    old = [x[1:] for x in body if x == "" or x[0] in " -"]
    new = [x[1:] for x in body if x == "" or x[0] in " +"]
    return _join(old), _join(new)


def _join(lines: Sequence[str]) -> str:
    return "".join(x + "\n" for x in lines)


def parse_hunks(lines: Sequence[str], j: int, old: str, new: str) -> DiffFile:
    """Parse the hunks starting at ``lines[j]`` for the file ``old`` → ``new``."""
    out = DiffFile(path=new if new != NULL else old)
    while j < len(lines) and lines[j].startswith("@@"):
        m = _HUNK.match(lines[j])
        hint = int(m.group(1)) if m and m.group(1) else None
        body, j = _hunk_lines(lines, j + 1)
        search, replace = _sides(body)
        if old == NULL:
            out.edits.append(Edit(new, "create", "", replace, "udiff"))
        elif new == NULL:
            out.edits.append(Edit(old, "delete", "", "", "udiff"))
        else:
            out.edits.append(Edit(new, "replace", search, replace, "udiff", hint))
    if not out.edits and new == NULL and old != NULL:
        out.edits.append(Edit(old, "delete", "", "", "udiff"))
    if old == NULL and len(out.edits) > 1:
        merged = "".join(e.replace for e in out.edits)
        out.edits = [Edit(new, "create", "", merged, "udiff")]
    if new == NULL:
        out.edits = out.edits[:1]
    out.end = j
    return out


def parse_diff_file(lines: Sequence[str], i: int) -> DiffFile:
    """Parse the file section whose ``---`` header is ``lines[i]``."""
    old, new = _header_path(lines[i]), _header_path(lines[i + 1])
    if (old.startswith("a/") or old == NULL) and (new.startswith("b/") or new == NULL):
        old = old if old == NULL else old[2:]
        new = new if new == NULL else new[2:]
    return parse_hunks(lines, i + 2, old, new)
