"""The reference graph and its personalised PageRank (the ranking behind the repo map).

Nodes are files; an edge goes from a file that uses an identifier to each file that defines
it, weighted like Aider's repo map: square root of the use count, boosted for identifiers the
task mentions, damped for private names and for names defined in many files.

PageRank is a numpy power iteration over the edge list: ``networkx.pagerank`` needs scipy,
which is not a dependency, and its pure-Python form is too slow for 10k-file repositories
(the tests check both agree).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from patchwright.index.model import FileSymbols

Edge = tuple[str, str, str, float]  # (referencing file, defining file, identifier, weight)


@dataclass(frozen=True)
class Ranking:
    """PageRank of files and of (file, identifier) definitions."""

    files: dict[str, float]
    definitions: dict[tuple[str, str], float]


def _ident_weight(ident: str, n_defining: int, mentioned: set[str]) -> float:
    weight = 1.0
    if ident in mentioned:
        weight *= 10.0
    if ident.startswith("_"):
        weight *= 0.1
    if n_defining > 5:
        weight *= 0.1
    if len(ident) < 3:
        weight *= 0.1
    # like Aider: long compound names (parse_config, ConfigLoader) are specific, plain
    # words (text, path, get) are mostly local variables that happen to share a name
    compound = "_" in ident.strip("_") or (ident[:1].islower() and not ident.islower())
    if compound and len(ident) >= 8:
        weight *= 10.0
    elif ident.islower() and "_" not in ident:
        weight *= 0.5
    return weight


def edges(symbols: Mapping[str, FileSymbols], mentioned: set[str]) -> list[Edge]:
    """Weighted reference edges between distinct files."""
    defines: dict[str, set[str]] = defaultdict(set)
    for path, fs in symbols.items():
        for d in fs.definitions:
            defines[d.name].add(path)
    out: list[Edge] = []
    for path, fs in symbols.items():
        for ident, lines in fs.references.items():
            targets = defines.get(ident)
            if not targets:
                continue
            weight = _ident_weight(ident, len(targets), mentioned) * math.sqrt(len(lines))
            out.extend((path, t, ident, weight) for t in targets if t != path)
    return out


def pagerank(
    nodes: list[str],
    weighted: Iterable[tuple[str, str, float]],
    personalization: Mapping[str, float] | None = None,
    *,
    alpha: float = 0.85,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> dict[str, float]:
    """PageRank with networkx's semantics (dangling mass follows the personalisation)."""
    n = len(nodes)
    if n == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    src, dst, w = [], [], []
    for a, b, weight in weighted:
        src.append(index[a])
        dst.append(index[b])
        w.append(weight)
    src_a, dst_a = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    w_a = np.array(w, dtype=np.float64)
    out_w = np.bincount(src_a, weights=w_a, minlength=n)
    p = np.zeros(n)
    for node, value in (personalization or {}).items():
        if node in index:
            p[index[node]] += value
    p = p / p.sum() if p.sum() > 0 else np.full(n, 1.0 / n)
    dangling = out_w == 0
    share = np.divide(w_a, out_w[src_a], out=np.zeros_like(w_a), where=out_w[src_a] > 0)
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        flow = np.bincount(dst_a, weights=x[src_a] * share, minlength=n)
        new = alpha * (flow + x[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(new - x).sum() < n * tol:
            x = new
            break
        x = new
    return {node: float(x[i]) for node, i in index.items()}


def rank(
    symbols: Mapping[str, FileSymbols],
    *,
    focus_files: Iterable[str] = (),
    mentioned: Iterable[str] = (),
) -> Ranking:
    """Personalised PageRank toward ``focus_files`` and files defining ``mentioned`` names."""
    mentioned_set = set(mentioned)
    all_edges = edges(symbols, mentioned_set)
    defines: dict[str, set[str]] = defaultdict(set)
    for path, fs in symbols.items():
        for d in fs.definitions:
            if d.name in mentioned_set:
                defines[d.name].add(path)
    personal: dict[str, float] = {}
    for path in focus_files:
        if path in symbols:
            personal[path] = personal.get(path, 0.0) + 1.0
    for paths in defines.values():
        for path in paths:
            personal[path] = personal.get(path, 0.0) + 1.0 / len(paths)
    ranks = pagerank(list(symbols), ((a, b, w) for a, b, _, w in all_edges), personal or None)
    return Ranking(ranks, _spread(all_edges, ranks, symbols))


def _spread(
    all_edges: list[Edge], ranks: Mapping[str, float], symbols: Mapping[str, FileSymbols]
) -> dict[tuple[str, str], float]:
    """Split each file's rank over its out-edges onto the definitions they point at."""
    total: dict[str, float] = defaultdict(float)
    for src, _, _, weight in all_edges:
        total[src] += weight
    out: dict[tuple[str, str], float] = defaultdict(float)
    for src, dst, ident, weight in all_edges:
        out[(dst, ident)] += ranks[src] * weight / total[src]
    # definitions nobody references still rank a little, by their file's own rank
    for path, fs in symbols.items():
        for d in fs.definitions:
            key = (path, d.name)
            if key not in out:
                out[key] = ranks.get(path, 0.0) * 1e-3
    return dict(out)
