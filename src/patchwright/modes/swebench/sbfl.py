"""Spectrum-based fault localisation: Ochiai over per-test line coverage.

The tests run once under coverage.py with ``dynamic_context = test_function``, so every
covered line knows which tests ran it. A line run by many failing tests and few passing
ones is suspicious: ``ef / sqrt(F * (ef + ep))`` (``F`` failing tests in all). A function's
score is its best line's; lines outside functions (run at import by every test) are left
out, and so are test files.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from patchwright.index.locate import is_test_path
from patchwright.modes.swebench.code import function_spans, innermost

LineHits = dict[str, dict[int, set[str]]]  # path -> line -> contexts that ran it


@dataclass(frozen=True)
class Scored:
    """A function and its suspiciousness."""

    path: str
    name: str
    line: int
    score: float


def ochiai(ef: int, ep: int, failing: int) -> float:
    if ef == 0 or failing == 0:
        return 0.0
    return ef / math.sqrt(failing * (ef + ep))


def context_key(test_id: str) -> str:
    """``tests/test_a.py::TestX::test_y[1]`` → ``test_a.TestX.test_y``: the tail a
    coverage ``test_function`` context ends with."""
    path, _, rest = test_id.partition("::")
    stem = Path(path).stem
    parts = [re.sub(r"\[.*\]$", "", p) for p in rest.split("::") if p]
    return ".".join([stem, *parts])


def contexts_of(tests: Collection[str], contexts: Collection[str]) -> set[str]:
    """The coverage contexts that belong to ``tests``."""
    keys = {context_key(t) for t in tests}
    return {c for c in contexts if any(c == k or c.endswith("." + k) for k in keys)}


def read_coverage(data_file: Path, repo: Path) -> LineHits:
    """Per-line contexts from a coverage data file, paths relative to ``repo``."""
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    hits: LineHits = {}
    for measured in data.measured_files():
        path = Path(measured)
        rel = path.relative_to(repo) if path.is_absolute() and path.is_relative_to(repo) else path
        if path.is_absolute() and not path.is_relative_to(repo):
            continue
        by_line = data.contexts_by_lineno(measured)
        hits[rel.as_posix()] = {line: set(ctx) for line, ctx in by_line.items()}
    return hits


def rank_functions(
    hits: LineHits,
    failing_tests: Collection[str],
    passing_tests: Collection[str],
    read: Callable[[str], str | None],
) -> list[Scored]:
    """Functions by Ochiai score, best first (see the module docstring)."""
    every = {c for lines in hits.values() for ctxs in lines.values() for c in ctxs}
    failing = contexts_of(failing_tests, every)
    passing = contexts_of(passing_tests, every) - failing
    best: dict[tuple[str, str], Scored] = {}
    for path, lines in hits.items():
        if not path.endswith(".py") or is_test_path(path):
            continue
        text = read(path)
        spans = function_spans(text) if text is not None else []
        for line, ctxs in lines.items():
            score = ochiai(len(ctxs & failing), len(ctxs & passing), len(failing))
            span = innermost(spans, line)
            if score <= 0 or span is None:
                continue
            key = (path, span.name)
            if key not in best or best[key].score < score:
                best[key] = Scored(path, span.name, span.start, score)
    return sorted(best.values(), key=lambda s: (-s.score, s.path, s.line))


def sbfl(
    data_file: Path,
    repo: Path,
    status: Mapping[str, str],
    read: Callable[[str], str | None],
) -> list[Scored]:
    """Suspicious functions from a coverage run and its per-test statuses."""
    failing = [t for t, s in status.items() if s in ("FAILED", "ERROR")]
    passing = [t for t, s in status.items() if s == "PASSED"]
    return rank_functions(read_coverage(data_file, repo), failing, passing, read)
