"""Localisation for an instance: suspect functions from three signals, fused.

* **traceback frames** of the failing FAIL_TO_PASS tests at baseline (the innermost frames
  in the repository's own, non-test code first);
* **SBFL** (Ochiai over per-test coverage, ``swebench_sbfl``);
* **the index** (``patchwright locate`` on the issue text: BM25, mentions, PageRank...).

Weighted reciprocal rank fusion ranks the functions; ``gold`` says where the real fix went
(files and functions the dataset's patch changes) to measure acc@k.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchwright.index.locate import is_test_path
from patchwright.modes.swebench.code import changed_lines, function_spans, innermost
from patchwright.modes.swebench.sbfl import Scored

Reader = Callable[[str], str | None]
WEIGHTS = {"sbfl": 1.0, "traceback": 0.8, "index": 0.6}
RRF_K = 5.0
_PYTEST_FRAME = re.compile(r"^(\S+\.py):(\d+): ", re.M)
_PY_FRAME = re.compile(r'File "([^"]+\.py)", line (\d+)')


@dataclass(frozen=True)
class Suspect:
    """A function the fix likely belongs in; ``evidence`` names the signals that found it."""

    path: str
    name: str
    line: int
    end: int
    score: float
    evidence: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name, "line": self.line, "end": self.end,
                "score": round(self.score, 5), "evidence": list(self.evidence)}  # fmt: skip


def traceback_functions(log: str, repo: Path, read: Reader) -> list[tuple[str, str, int]]:
    """``(path, function, line)`` of traceback frames in the repository's non-test code,
    innermost (last printed) first, each function once."""
    frames: list[tuple[int, str, int]] = []  # (position in the log, path, line)
    for m in [*_PYTEST_FRAME.finditer(log), *_PY_FRAME.finditer(log)]:
        raw = Path(m.group(1))
        if raw.is_absolute():
            if not raw.is_relative_to(repo):
                continue
            raw = raw.relative_to(repo)
        elif ".." in raw.parts:  # pytest prints frames outside the checkout as ../.venv/...
            continue
        frames.append((m.start(), raw.as_posix(), int(m.group(2))))
    ordered = [(path, line) for _, path, line in sorted(frames, key=lambda f: -f[0])]
    out: dict[tuple[str, str], tuple[str, str, int]] = {}
    for path, line in ordered:
        if is_test_path(path):
            continue
        text = read(path)
        span = innermost(function_spans(text), line) if text is not None else None
        if span is not None and (path, span.name) not in out:
            out[(path, span.name)] = (path, span.name, span.start)
    return list(out.values())


@dataclass
class Signals:
    """The rankings to fuse: each a list of ``(path, function, line)``, best first."""

    sbfl: list[Scored] = field(default_factory=list)
    traceback: list[tuple[str, str, int]] = field(default_factory=list)
    index: list[tuple[str, str, int]] = field(default_factory=list)


def fuse(signals: Signals, read: Reader, limit: int = 7) -> list[Suspect]:
    """Weighted reciprocal rank fusion of the signals into at most ``limit`` suspects."""
    rankings: dict[str, Sequence[tuple[str, str, int]]] = {
        "sbfl": [(s.path, s.name, s.line) for s in signals.sbfl],
        "traceback": signals.traceback,
        "index": signals.index,
    }
    score: dict[tuple[str, str], float] = {}
    lines: dict[tuple[str, str], int] = {}
    evidence: dict[tuple[str, str], list[str]] = {}
    for method, order in rankings.items():
        for rank, (path, name, line) in enumerate(order[:20]):
            key = (path, name)
            score[key] = score.get(key, 0.0) + WEIGHTS[method] / (RRF_K + rank + 1)
            lines.setdefault(key, line)
            evidence.setdefault(key, []).append(method)
    best = sorted(score, key=lambda k: (-score[k], k))[:limit]
    suspects = []
    for path, name in best:
        text = read(path) or ""
        span = next((s for s in function_spans(text) if s.name == name), None)
        end = span.end if span else lines[(path, name)]
        suspects.append(Suspect(path, name, lines[(path, name)], end, score[(path, name)],
                                tuple(evidence[(path, name)])))  # fmt: skip
    return suspects


def gold(patch: str, read: Reader) -> tuple[list[str], list[str]]:
    """Files and ``path::function`` names the dataset's patch changes (old-file lines)."""
    files: list[str] = []
    functions: list[str] = []
    for path, lines in changed_lines(patch).items():
        files.append(path)
        spans = function_spans(read(path) or "")
        names = {s.name for line in lines if (s := innermost(spans, line)) is not None}
        functions.extend(f"{path}::{n}" for n in sorted(names))
    return files, functions


def rank_of(order: Sequence[str], wanted: Sequence[str]) -> int | None:
    """1-based rank of the first wanted item in ``order`` (None: not found)."""
    hits = [i for i, item in enumerate(order, 1) if item in set(wanted)]
    return hits[0] if hits else None
