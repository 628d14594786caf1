"""Localisation for an instance: suspect functions from three signals, fused.

* **traceback frames** in the repository's own, non-test code (innermost first): of the
  tests failing at baseline, and of the tracebacks the issue text quotes (``issue_frames``:
  a reporter's ``site-packages/pkg/mod.py`` is the checkout's ``src/pkg/mod.py``);
* **SBFL** (Ochiai over per-test coverage, :mod:`.sbfl`): the failing tests are the hidden
  FAIL_TO_PASS with ``--oracle-tests``, the agent's own reproduction test in the fair mode;
* **the index** (``patchwright locate`` on the issue text: BM25, mentions, PageRank...).

Weighted reciprocal rank fusion ranks the functions; ``gold`` says where the real fix went
(files and functions the dataset's patch changes) to measure acc@k.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from patchwright.index.locate import is_test_path
from patchwright.modes.swebench.code import changed_lines, function_spans, innermost
from patchwright.modes.swebench.sbfl import Scored

if TYPE_CHECKING:
    from patchwright.index import RepoIndex

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


def issue_frames(text: str, paths: Sequence[str], read: Reader) -> list[tuple[str, str, int]]:
    """``(path, function, line)`` of the traceback frames an issue quotes, innermost first:
    a frame's file is the checkout's file with the longest common tail of at least two
    parts (``.../site-packages/pkg/mod.py`` → ``src/pkg/mod.py``); test files are left out."""
    frames: list[tuple[int, str, int]] = []
    for m in [*_PY_FRAME.finditer(text), *_PYTEST_FRAME.finditer(text)]:
        path = _checkout_path(m.group(1), paths)
        if path is not None and not is_test_path(path):
            frames.append((m.start(), path, int(m.group(2))))
    out: dict[tuple[str, str], tuple[str, str, int]] = {}
    for _, path, line in sorted(frames, key=lambda f: -f[0]):
        source = read(path)
        span = innermost(function_spans(source), line) if source is not None else None
        if span is not None and (path, span.name) not in out:
            out[(path, span.name)] = (path, span.name, span.start)
    return list(out.values())


def _checkout_path(raw: str, paths: Sequence[str]) -> str | None:
    """The one checkout file sharing the longest tail with ``raw`` (None: no file shares two
    parts or the raw path itself, or two files share as much)."""
    parts = PurePosixPath(raw.replace("\\", "/")).parts
    best: str | None = None
    best_len, tied = 0, False
    for path in paths:
        mine = PurePosixPath(path).parts
        common = 0
        while common < min(len(mine), len(parts)) and mine[-1 - common] == parts[-1 - common]:
            common += 1
        if common > best_len:
            best, best_len, tied = path, common, False
        elif common == best_len and common:
            tied = True
    if best is None or tied:
        return None
    return best if best_len >= 2 or best_len == len(parts) else None


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


def index_signal(index: RepoIndex | None, text: str) -> list[tuple[str, str, int]]:
    """The functions ``patchwright locate`` finds for ``text`` (none without an index)."""
    if index is None:
        return []
    return [(s.path, s.name, s.line) for s in index.locate(text, k=10).symbols]


def describe(
    suspects: Sequence[Suspect], signals: Signals, gold_patch: str, read: Reader
) -> dict[str, Any]:
    """What ``result.json`` keeps of a localisation: the suspects, how many each signal
    found, and the ranks of the dataset's own fix among them (measured, never used)."""
    gold_files, gold_functions = gold(gold_patch, read)
    files = list(dict.fromkeys(s.path for s in suspects))
    functions = [f"{s.path}::{s.name}" for s in suspects]
    return {
        "suspects": [s.to_json() for s in suspects],
        "gold_files": gold_files,
        "gold_functions": gold_functions,
        "file_rank": rank_of(files, gold_files),
        "function_rank": rank_of(functions, gold_functions),
        "signals": {
            "sbfl": len(signals.sbfl),
            "traceback": len(signals.traceback),
            "index": len(signals.index),
        },
    }


def rank_of(order: Sequence[str], wanted: Sequence[str]) -> int | None:
    """1-based rank of the first wanted item in ``order`` (None: not found)."""
    hits = [i for i, item in enumerate(order, 1) if item in set(wanted)]
    return hits[0] if hits else None
