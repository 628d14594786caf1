"""Project memory: AGENTS.md / CLAUDE.md (and AGENT.md) read from the repo root down to the
working directory, nearest last so the most specific notes come at the end; capped."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MEMORY_NAMES = ("AGENTS.md", "AGENT.md", "CLAUDE.md")


@dataclass(frozen=True)
class ProjectMemory:
    text: str
    sources: list[str]
    truncated: bool


def _chain(root: Path, cwd: Path) -> list[Path]:
    root, cwd = root.resolve(), cwd.resolve()
    if cwd != root and root not in cwd.parents:
        return [root]
    dirs = [cwd, *[p for p in cwd.parents if p == root or root in p.parents]]
    return list(reversed(dirs))


def read_memory(root: Path, cwd: Path | None = None, *, max_chars: int = 6000) -> ProjectMemory:
    """Concatenate the memory files from ``root`` down to ``cwd`` within ``max_chars``."""
    parts: list[str] = []
    sources: list[str] = []
    used = 0
    truncated = False
    for directory in _chain(root, cwd or root):
        for name in MEMORY_NAMES:
            path = directory / name
            if not path.is_file():
                continue
            try:
                text = path.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                continue
            if not text:
                continue
            room = max_chars - used
            if room <= 0:
                truncated = True
                break
            if len(text) > room:
                text, truncated = text[:room] + "\n[... truncated]", True
            parts.append(text)
            sources.append(path.relative_to(root.resolve()).as_posix())
            used += len(text)
    return ProjectMemory("\n\n".join(parts), sources, truncated)
