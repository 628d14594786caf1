"""Where the review loop keeps its files, and the append-only records among them.

The files PyOB writes — ``ANALYSIS.md``, ``SYMBOLS.json``, ``MEMORY.md``, ``HISTORY.md``, the
pending ``PEER_REVIEW.md`` / ``FEATURE.md`` and the ``FAILED_*.md`` archives — go to
``.patchwright/review/`` by default, or to the repository root with ``--memory-in-repo``.
The loop's own bookkeeping (summary and targeting caches) always stays under
``.patchwright/review/``. Every write is atomic: a reader (the dashboard, a stop mid-write)
sees the old file or the new one.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchwright.workspace.atomic import atomic_write

REVIEW_DIR = Path(".patchwright") / "review"
MEMORY_FILES = (
    "ANALYSIS.md",
    "SYMBOLS.json",
    "MEMORY.md",
    "HISTORY.md",
    "PEER_REVIEW.md",
    "FEATURE.md",
    "FAILED_PEER_REVIEW.md",
    "FAILED_FEATURE.md",
)
DIFF_HEAD, DIFF_TAIL = 20, 10  # lines of a long diff HISTORY.md keeps at each end


@dataclass(frozen=True)
class ReviewPaths:
    """The review's files for one repository (see the module docstring)."""

    root: Path
    dir: Path
    cache: Path

    @classmethod
    def for_repo(cls, root: Path, *, in_repo: bool = False) -> ReviewPaths:
        cache = root / REVIEW_DIR
        return cls(root, root if in_repo else cache, cache)

    def file(self, name: str) -> Path:
        return self.dir / name

    @property
    def relative_names(self) -> frozenset[str]:
        """The memory files as repository paths (never review targets)."""
        try:
            base = self.dir.relative_to(self.root).as_posix()
        except ValueError:
            return frozenset()
        prefix = "" if base in ("", ".") else base + "/"
        return frozenset(prefix + name for name in MEMORY_FILES)

    def write(self, name: str, text: str) -> Path:
        path = self.file(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))
        return path

    def read(self, name: str) -> str:
        try:
            return self.file(name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def append(self, name: str, entry: str, *, title: str) -> Path:
        """Add ``entry`` at the end of ``name`` (created with ``# title`` when absent)."""
        current = self.read(name) or f"# {title}\n"
        return self.write(name, current.rstrip("\n") + "\n\n" + entry.strip("\n") + "\n")

    def remove(self, name: str) -> None:
        self.file(name).unlink(missing_ok=True)

    def load_cache(self, name: str) -> dict[str, Any]:
        try:
            data = json.loads((self.cache / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_cache(self, name: str, data: dict[str, Any]) -> None:
        self.cache.mkdir(parents=True, exist_ok=True)
        atomic_write(self.cache / name, json.dumps(data, indent=1, sort_keys=True).encode())


def sha(text: str) -> str:
    """A text's content hash (the caches' key for "this file, at this content")."""
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S")


def cut_diff(diff: str, head: int = DIFF_HEAD, tail: int = DIFF_TAIL) -> str:
    """A long diff cut to its first and last lines with a marker saying how much is left out."""
    lines = diff.rstrip("\n").splitlines()
    if len(lines) <= head + tail + 1:
        return "\n".join(lines)
    cut = len(lines) - head - tail
    return "\n".join([*lines[:head], f"... [{cut} lines cut for memory] ...", *lines[-tail:]])


def history_entry(
    *, paths: list[str], kind: str, rationale: str, diff: str, commit: str | None
) -> str:
    """One HISTORY.md entry: when, which files, why, the commit and the (cut) diff."""
    files = ", ".join(f"`{p}`" for p in paths) or "(no files)"
    ref = f" · {commit[:12]}" if commit else ""
    return (
        f"## {stamp()} · {files} · {kind}{ref}\n"
        f"Why: {one_line(rationale)}\n\n```diff\n{cut_diff(diff)}\n```"
    )


def failed_entry(*, target: str, kind: str, rationale: str, errors: str, diff: str) -> str:
    """One FAILED_*.md entry: the proposal that the gates turned down, with their errors."""
    attempt = f"\n\nLast attempt:\n\n```diff\n{cut_diff(diff)}\n```" if diff.strip() else ""
    return (
        f"## {stamp()} · `{target}` · {kind} rejected by the gates\n"
        f"Why proposed: {one_line(rationale)}\n\nErrors:\n\n```text\n{errors.strip()[:4000]}\n```"
        f"{attempt}"
    )


def pending_entry(
    *, target: str, kind: str, iteration: int, findings: list[str], rationale: str, diff: str
) -> str:
    """PEER_REVIEW.md / FEATURE.md: the proposal waiting at the checkpoint."""
    title = "Feature proposal" if kind == "feature" else "Peer review"
    listed = "\n".join(f"- {f}" for f in findings) or "- (none: the model's own review)"
    return (
        f"# {title}: `{target}`\n\n{stamp()} · iteration {iteration} · {kind}\n\n"
        f"## Findings\n\n{listed}\n\n## Proposal\n\n{rationale.strip()}\n\n"
        f"```diff\n{diff.rstrip()}\n```\n"
    )


def one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def recent_entries(text: str, n: int, max_chars: int) -> str:
    """The last ``n`` ``## `` entries of a record, the oldest dropped whole to stay within
    ``max_chars`` (a single entry over the cap is cut at its end)."""
    parts = ["## " + p.strip() for p in text.split("\n## ")[1:]][-n:] if n > 0 else []
    kept: list[str] = []
    for entry in reversed(parts):
        if len("\n\n".join([entry, *kept])) > max_chars:
            break
        kept.insert(0, entry)
    if not kept and parts:
        return parts[-1][: max(0, max_chars - 1)] + "…"
    return "\n\n".join(kept)
