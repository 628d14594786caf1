"""Where the struct a rustc error names is declared, and with which fields: the hint for the
errors that come with none.

rustc's E0560 ("struct `Counter` has no field named `count`") and E0609 ("no field `count` on
type `&Counter`") give no ``help:`` line. A small model told only that tried another field
name, or the same one again, where the fix was in the declaration (polyglot Rust: the struct
was the exercise's unit stub ``pub struct Counter;``). The hint says where the struct is and
what it has: ``help: `Counter` is declared at src/lib.rs:1 with no fields: `pub struct
Counter;``` — or its fields, by name.
"""

from __future__ import annotations

import re
from pathlib import Path

from patchwright.verify.runners.common import relative

FIELD_ERRORS = frozenset({"E0560", "E0609", "E0026", "E0063"})
_NAMED = re.compile(r"(?:struct|type) `&?(?:mut )?(?:[\w:]+::)?(\w+)(?:<[^`]*>)?`")
_FIELD = re.compile(r"(?:^|[{,\n])\s*(?:pub(?:\([^)]*\))?\s+)?(\w+)\s*:(?!:)")
_MAX_FILES = 200


def field_hint(message: str, crate: Path, tree: Path) -> str:
    """The hint for a field error's struct (``message`` names it), from the ``.rs`` files of
    ``crate``'s ``src``; empty when it is not declared there (a dependency's, say) or declared twice."""
    named = _NAMED.search(message)
    if named is None:
        return ""
    name = named.group(1)
    head = re.compile(rf"^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+{name}\b[^\n]*", re.M)
    found: list[tuple[Path, str, int, int]] = []
    # the crate's own sources only: a walk of the whole crate would go through target/
    for path in sorted((crate / "src").rglob("*.rs"))[:_MAX_FILES]:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found += [(path, text, m.start(), m.end()) for m in head.finditer(text)]
    if len(found) != 1:
        return ""
    path, text, start, end = found[0]
    line = text.count("\n", 0, start) + 1
    where = f"`{name}` is declared at {relative(str(path), tree) or path.name}:{line}"
    declared = text[start:end].strip()
    if declared.endswith(";") or "{" not in declared:
        return f"help: {where} with no named fields: `{declared}`"
    if "}" in declared:  # declared on one line
        body = declared[declared.index("{") : declared.rindex("}")]
    else:
        close = text.find("\n}", end)
        body = text[end : close if close >= 0 else len(text)]
    fields = _FIELD.findall(body)
    if not fields:
        return f"help: {where} with no fields: `{declared}`"
    return f"help: {where} with the fields {', '.join(f'`{f}`' for f in fields[:12])}"
