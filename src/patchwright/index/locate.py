"""Localisation: which files and functions a task text is about.

Each method ranks files on its own (BM25 over chunks, personalised PageRank of the
reference graph, explicit path/identifier mentions, semantic similarity); weighted
reciprocal rank fusion combines them. Test files are damped because a fix rarely lives
there. Weights were tuned on the development set (see ``benchmarks/localize``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from patchwright.index.lexical import Chunk

_TEST_PATH = re.compile(
    r"(^|/)(tests?|testing|spec|__tests__)/|(^|/)test_[^/]*$|_test\.[a-z]+$|(^|/)conftest\.py$"
    r"|\.(test|spec)\.[cm]?[jt]sx?$"
)


@dataclass(frozen=True)
class ScoredFile:
    """A file and its fused relevance score (higher is better)."""

    path: str
    score: float


@dataclass(frozen=True)
class ScoredSymbol:
    """A definition and its relevance score; ``line`` is 1-based."""

    path: str
    name: str
    line: int
    score: float


@dataclass
class Located:
    """Ranked files and ranked functions, best first."""

    files: list[ScoredFile] = field(default_factory=list)
    symbols: list[ScoredSymbol] = field(default_factory=list)
    methods: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        """The ``patchwright locate --json`` object."""
        return {
            "files": [{"path": f.path, "score": round(f.score, 6)} for f in self.files],
            "symbols": [
                {"path": s.path, "name": s.name, "line": s.line, "score": round(s.score, 6)}
                for s in self.symbols
            ],
        }


@dataclass(frozen=True)
class Weights:
    """Per-method weights of the reciprocal rank fusion, and its constant.

    Defaults are the coordinate-ascent optimum on the 209 development issues
    (``benchmarks/localize/run.py --tune``); two-fold cross-validation of that tuning
    scores within 0.02 of them, so they are not just fitted noise."""

    bm25: float = 0.5
    bm25_file: float = 1.0
    mentions: float = 0.5
    identifiers: float = 0.5
    pagerank: float = 0.3
    stems: float = 0.5
    literals: float = 0.5
    semantic: float = 0.5
    rrf_k: float = 10.0
    test_penalty: float = 0.3
    aux_penalty: float = 0.3


_AUX_DIRS = frozenset(
    "doc docs example examples benchmarks benchmark build_tools scripts ci tools asv_bench".split()
)
_AUX_FILES = frozenset("setup.py conf.py conftest.py versioneer.py noxfile.py _version.py".split())


def is_auxiliary_path(path: str) -> bool:
    """Documentation, examples, build and packaging scripts: rarely where a fix goes."""
    parts = path.split("/")
    return parts[0] in _AUX_DIRS or parts[-1] in _AUX_FILES


def is_test_path(path: str) -> bool:
    """Whether ``path`` looks like a test file or test helper."""
    return bool(_TEST_PATH.search(path))


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Keys with positive scores, best first (ties by path for determinism)."""
    return [p for p, s in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])) if s > 0]


def scored(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """``(key, score)`` pairs with positive scores, best first."""
    return [(p, scores[p]) for p in ranked(scores)]


Ranking = Sequence[tuple[str, float]] | Sequence[str]


def _tie_ranks(order: Ranking) -> list[tuple[str, int]]:
    """Competition ranks: items with equal scores share the best rank of their group."""
    out: list[tuple[str, int]] = []
    last: float | None = None
    rank = 0
    for position, item in enumerate(order):
        if isinstance(item, str):
            out.append((item, position))
            continue
        path, score = str(item[0]), float(item[1])
        if last is None or score != last:
            rank, last = position, score
        out.append((path, rank))
    return out


def fuse(rankings: Mapping[str, Ranking], weights: Weights) -> dict[str, float]:
    """Weighted reciprocal rank fusion of per-method rankings (ties share a rank), with
    test and auxiliary files damped."""
    fused: dict[str, float] = {}
    for method, order in rankings.items():
        weight = float(getattr(weights, method, 0.0))
        if weight <= 0:
            continue
        for path, rank in _tie_ranks(order):
            fused[path] = fused.get(path, 0.0) + weight / (weights.rrf_k + rank + 1)
    for path in fused:
        if is_test_path(path):
            fused[path] *= weights.test_penalty
        elif is_auxiliary_path(path):
            fused[path] *= weights.aux_penalty
    return fused


def rank_symbols(
    chunk_hits: list[tuple[Chunk, float]],
    file_scores: Mapping[str, float],
    mentioned: set[str],
    k: int,
) -> list[ScoredSymbol]:
    """Functions: chunk relevance times its file's fused score, named ones boosted."""
    best: dict[tuple[str, str], ScoredSymbol] = {}
    for rank, (chunk, _score) in enumerate(chunk_hits[:500]):
        if not chunk.name or chunk.path not in file_scores:
            continue
        leaf = chunk.name.rsplit(".", 1)[-1]
        value = file_scores[chunk.path] / (5.0 + rank)
        if leaf in mentioned:
            value *= 3.0
        key = (chunk.path, chunk.name)
        if key not in best or best[key].score < value:
            best[key] = ScoredSymbol(chunk.path, chunk.name, chunk.line, value)
    ordered = sorted(best.values(), key=lambda s: (-s.score, s.path, s.line))
    return ordered[:k]
