"""Validators for a candidate diff, before any test runs (coding-in-parallel's gates):

* **shape** — a unified diff that names its files and has hunks;
* **allowlist** — only files of the suspects (or files the issue names);
* **caps** — at most ``max_lines`` changed lines and ``max_files`` files;
* **API guard** — no public function's signature changes or disappears unless the issue
  names that function.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from patchwright.modes.swebench.code import function_spans

_FILE = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", re.M)


@dataclass(frozen=True)
class Caps:
    max_lines: int = 60
    max_files: int = 3


@dataclass
class Validation:
    """Why a candidate is refused (empty: it passes)."""

    reasons: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.reasons


def churn(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a unified diff."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def api_changes(old: str, new: str, task: str) -> list[str]:
    """Public functions of ``old`` whose signature changed or that are gone, and that the
    task text does not name."""
    after = {s.name: s.signature for s in function_spans(new)}
    changed = []
    for span in function_spans(old):
        if not span.public or _names(task, span.name.rsplit(".", 1)[-1]):
            continue
        now = after.get(span.name)
        if now != span.signature:
            changed.append(f"{span.signature} → {now or 'removed'}")
    return changed


def _names(text: str, identifier: str) -> bool:
    """Whether ``text`` names ``identifier`` as a whole identifier ("add" is not named by
    "added" nor by "add_all")."""
    return re.search(rf"(?<!\w){re.escape(identifier)}(?!\w)", text) is not None


def validate(
    diff: str,
    changes: Mapping[str, bytes | None],
    *,
    allowed: Collection[str],
    old_text: Callable[[str], str | None],
    task: str,
    caps: Caps = Caps(),
) -> Validation:
    """Check a candidate (see the module docstring)."""
    result = Validation()
    named = set(_FILE.findall(diff)) - {"/dev/null"}
    if not changes or not named or not _HUNK.search(diff):
        result.reasons.append("shape: not a unified diff with files and hunks")
        return result
    outside = sorted(p for p in changes if p not in allowed)
    if outside:
        result.reasons.append(
            f"allowlist: changes files outside the suspects: {', '.join(outside)}"
        )
    added, removed = churn(diff)
    if added + removed > caps.max_lines:
        result.reasons.append(f"size: {added + removed} changed lines (cap {caps.max_lines})")
    if len(changes) > caps.max_files:
        result.reasons.append(f"size: {len(changes)} files (cap {caps.max_files})")
    for path, data in changes.items():
        old = old_text(path)
        if path.endswith(".py") and old is not None:
            new = data.decode("utf-8", "replace") if data is not None else ""
            result.reasons.extend(f"api: {path}: {c}" for c in api_changes(old, new, task))
    return result
