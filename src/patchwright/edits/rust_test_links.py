"""The line that links a Rust test module stays when a reply writes the module inline.

A Rust crate whose tests live in their own file links them with ``#[cfg(test)] mod tests;``.
Asked to fix a function, a small model often sends the file back with that line replaced by
``mod tests { … }`` holding its own copy of the tests (HumanEvalFix Rust-33 and Rust-34:
five of nine replies). The change then unlinks ``src/tests.rs`` — the tests the task must pass
no longer compile, and whatever the inline copy asserts is run in their place — and a reply
that changed nothing else is not seen as the no-op it is.

So the inline module is read as the test file's copy it is: the link comes back, in the
reply's place, and the reply's copy of the tests is left out, with a note. A change that
deletes the module's file as well (moving the tests inline on purpose) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import PurePosixPath

from patchwright.edits.brace_defs import definitions

_LINK = re.compile(r"^\s*(#\[cfg\(test\)\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;\s*$")
_INLINE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{")
_CFG_TEST = re.compile(r"^\s*#\[cfg\(test\)\]\s*$")


def module_files(path: str, name: str) -> tuple[str, str]:
    """Where ``mod name;`` in the Rust file ``path`` finds its module: ``name.rs`` or
    ``name/mod.rs`` beside a crate root (``lib.rs``, ``main.rs``, ``mod.rs``), else in the
    folder named after the file."""
    file = PurePosixPath(path)
    root = file.name in ("lib.rs", "main.rs", "mod.rs")
    folder = file.parent if root else file.parent / file.stem
    return str(folder / f"{name}.rs"), str(folder / name / "mod.rs")


def _test_links(lines: list[str]) -> list[tuple[int, str]]:
    """Each ``mod NAME;`` under ``#[cfg(test)]`` in ``lines``: (its line index, NAME)."""
    found: list[tuple[int, str]] = []
    for n, line in enumerate(lines):
        match = _LINK.match(line)
        above = next((x for x in reversed(lines[:n]) if x.strip()), "")
        if match and (match.group(1) or _CFG_TEST.match(above)):
            found.append((n, match.group(2)))
    return found


def keep_test_links(
    path: str, old: str, new: str, deleted: Collection[str] = ()
) -> tuple[str, list[str]]:
    """``new`` (the change of the Rust file ``path`` from ``old``) with each test-module link
    of ``old`` that it replaced by an inline module of that name restored; and a note for
    each. ``deleted``: the paths the same change deletes."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    kept = {x.strip() for x in new_lines}
    notes: list[str] = []
    for n, name in _test_links(old_lines):
        if old_lines[n].strip() in kept or set(module_files(path, name)) & set(deleted):
            continue
        spans = [s for s in definitions(path, "\n".join(new_lines))
                 if s.depth == 0 and s.name == name and _INLINE.match(new_lines[s.head])]  # fmt: skip
        if not spans:
            continue
        span = spans[0]
        cfg = (
            n
            if "#[" in old_lines[n]
            else next(i for i in range(n - 1, -1, -1) if old_lines[i].strip())
        )
        new_lines[span.start : span.stop] = old_lines[cfg : n + 1]
        notes.append(
            f"{path}: kept `{old_lines[n].strip()}` — the reply wrote a `mod {name} {{ … }}` "
            f"of its own in its place; the tests stay in their own file, unchanged"
        )
    return ("\n".join(new_lines), notes) if notes else (new, [])
