"""Project memory: the notes a project keeps for coding agents, read for every prompt.

Read in order, most general first and nearest last, so the most specific notes come at the
end: the user's own ``~/.config/patchwright/AGENTS.md`` (``$XDG_CONFIG_HOME``), then from
the repository root down to the working directory ``AGENTS.md``, ``AGENT.md``,
``CLAUDE.md`` and ``CLAUDE.local.md`` (personal notes, usually git-ignored). A line or a
word ``@path`` imports another file (Claude Code's syntax; a ``CLAUDE.md`` holding only
``@AGENTS.md`` is a pointer): resolved from the importing file's folder, at most
:data:`IMPORT_DEPTH` imports deep, each file once, and only inside the repository (the
user's notes: inside their folder); imports in code spans and fenced blocks are text.
Everything together is capped at ``max_chars``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

MEMORY_NAMES = ("AGENTS.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md")
IMPORT_DEPTH = 5
_MAX_FILE_BYTES = 256 * 1024  # a memory file past this is read only this far
_IMPORT = re.compile(r"(?<![\w`@])@((?:~/|/|\.{1,2}/)?[\w.][\w.\-/]*)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`]*`")


@dataclass(frozen=True)
class ProjectMemory:
    text: str
    sources: list[str]
    truncated: bool


def user_memory_dir() -> Path:
    """Where the user's own notes live (beside the user config)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "patchwright"


def _chain(root: Path, cwd: Path) -> list[Path]:
    root, cwd = root.resolve(), cwd.resolve()
    if cwd != root and root not in cwd.parents:
        return [root]
    dirs = [cwd, *[p for p in cwd.parents if p == root or root in p.parents]]
    return list(reversed(dirs))


def _within(path: Path, jail: Path) -> bool:
    return path == jail or jail in path.parents


@dataclass
class _Reader:
    """Collects memory parts within the character budget, following imports."""

    root: Path
    max_chars: int
    parts: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)
    bodies: set[str] = field(default_factory=set)  # a CLAUDE.md copied from AGENTS.md counts once
    used: int = 0
    truncated: bool = False

    def add(self, path: Path, jail: Path, depth: int = 0) -> None:
        try:
            path = path.resolve()
        except OSError:
            return
        if path in self.seen or not _within(path, jail) or not path.is_file():
            return
        self.seen.add(path)
        text = _read(path)
        if text is None:
            return
        body, imports = _split_imports(text)
        if body and body not in self.bodies:
            self.bodies.add(body)
            self._append(body, path)
        if depth >= IMPORT_DEPTH:
            return
        for target in imports:
            self.add(_resolve(target, path.parent), jail, depth + 1)

    def _append(self, text: str, path: Path) -> None:
        room = self.max_chars - self.used
        if room <= 0:
            self.truncated = True
            return
        if len(text) > room:
            text, self.truncated = text[:room] + "\n[... truncated]", True
        self.parts.append(text)
        self.sources.append(self._label(path))
        self.used += len(text)

    def _label(self, path: Path) -> str:
        if _within(path, self.root):
            return path.relative_to(self.root).as_posix()
        home = Path.home()
        return "~/" + path.relative_to(home).as_posix() if home in path.parents else str(path)


def _resolve(target: str, folder: Path) -> Path:
    if target.startswith("~/"):
        return Path.home() / target[2:]
    return folder / target  # an absolute target stays absolute


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_FILE_BYTES)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace").strip()


def _split_imports(text: str) -> tuple[str, list[str]]:
    """The text without lines that only import, and the import targets in order (none
    taken from code spans or fenced blocks)."""
    kept: list[str] = []
    targets: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if fenced or _FENCE.match(line):
            kept.append(line)
            continue
        found = _IMPORT.findall(_CODE_SPAN.sub("", line))
        targets.extend(t.rstrip(".") for t in found)
        if not (found and not _IMPORT.sub("", line).strip()):
            kept.append(line)
    return "\n".join(kept).strip(), targets


def read_memory(
    root: Path,
    cwd: Path | None = None,
    *,
    max_chars: int = 6000,
    user_dir: Path | None = None,
) -> ProjectMemory:
    """Concatenate the memory files (the user's, then ``root`` down to ``cwd``; default: the
    process's working directory when it lies inside ``root``) within ``max_chars``."""
    root = Path(root).resolve()
    if cwd is None:
        here = Path.cwd().resolve()
        cwd = here if _within(here, root) else root
    reader = _Reader(root, max_chars)
    home = (user_dir or user_memory_dir()).resolve()
    if not _within(home, root):
        for name in MEMORY_NAMES:
            reader.add(home / name, home)
    for directory in _chain(root, cwd):
        for name in MEMORY_NAMES:
            reader.add(directory / name, root)
    return ProjectMemory("\n\n".join(reader.parts), reader.sources, reader.truncated)
