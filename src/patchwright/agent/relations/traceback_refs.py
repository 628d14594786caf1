"""Files and lines named in failing-test output (Python tracebacks, pytest and generic
``path:line`` references), so the context can show the code a failure points at."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)')
_PATH_LINE = re.compile(r"(?P<path>[\w./-]+\.[A-Za-z]{1,5}):(?P<line>\d+)")


def referenced_files(output: str, paths: Sequence[str]) -> list[tuple[str, int]]:
    """(repo path, line) pairs in order of first appearance, for files that exist in ``paths``."""
    known = set(paths)
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for pattern in (_PY_FRAME, _PATH_LINE):
        for match in pattern.finditer(output):
            raw = match.group("path").replace("\\", "/")
            rel = _to_repo_path(raw, known)
            if rel and rel not in seen:
                seen.add(rel)
                found.append((rel, int(match.group("line"))))
    return found


def referenced_lines(output: str, path: str) -> list[int]:
    """Every line of ``path`` the output names, in order (a traceback's frames in it)."""
    lines: list[int] = []
    for match in sorted((*_PY_FRAME.finditer(output), *_PATH_LINE.finditer(output)),
                        key=lambda m: m.start()):  # fmt: skip
        if _to_repo_path(match.group("path").replace("\\", "/"), {path}) == path:
            lines.append(int(match.group("line")))
    return lines


def _to_repo_path(raw: str, known: set[str]) -> str | None:
    raw = raw.lstrip("./")
    if raw in known:
        return raw
    for path in known:  # absolute or sandbox-prefixed paths end with the repo path
        if raw.endswith("/" + path):
            return path
    return None
