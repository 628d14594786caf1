"""Which file the review loop looks at next, and why.

The cascade queue comes first: a file that uses a definition the last accepted change removed
or re-signed is reviewed next, with that change as context. Otherwise every candidate is
scored: its findings (failing tests and crashes weigh most, then lint and type errors, lazy
patterns least), how central it is (PageRank over the reference graph, how many files use
it), and its recent history — never reviewed counts for it; reviewed at the same content,
just reviewed, or just failed count against it. The reasons are kept in words, for the
event, the dashboard and the model.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from patchwright.agent.relations.related_tests import is_test_path
from patchwright.index import FileSymbols
from patchwright.index.graph import rank
from patchwright.modes.review.findings import Finding, Findings

LAZY_CAP = 3.0  # lazy patterns add at most this much, however many there are
CENTRALITY_WEIGHT = 2.0
TRIES_WITH_PROBLEMS = 2  # reviews of one content that still has tool findings before it rests


@dataclass(frozen=True)
class CascadeItem:
    """A file to revisit because a definition it uses changed (PyOB's cascade queue)."""

    path: str
    trigger: str  # the file whose change rippled
    ripples: tuple[str, ...]  # "`area`: signature `def area(w, h)` → `def area(w, h, unit)`"
    diff: str


@dataclass(frozen=True)
class Target:
    path: str
    score: float
    reasons: tuple[str, ...]
    cascade: CascadeItem | None = None

    def to_json(self) -> dict[str, Any]:
        score = round(self.score, 2) if math.isfinite(self.score) else None  # None: cascade
        return {"path": self.path, "score": score, "reasons": list(self.reasons),
                "cascade": self.cascade is not None}  # fmt: skip


@dataclass
class History:
    """What happened to each file in earlier iterations (kept across runs)."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)

    def note(self, path: str, iteration: int, outcome: str, sha: str) -> None:
        seen = self.files.get(path)
        tries = int(seen.get("tries", 1)) + 1 if seen and seen.get("sha") == sha else 1
        self.files[path] = {"iteration": iteration, "outcome": outcome, "sha": sha, "tries": tries}

    def settled(self, path: str, sha: str, *, problems: bool = False) -> bool:
        """Reviewed at this very content without a change kept: nothing new to find — or,
        where the tools still report problems in it, reviewed so ``TRIES_WITH_PROBLEMS``
        times (a sampled model may fix on a second look what it missed on the first)."""
        seen = self.files.get(path)
        return (
            seen is not None
            and seen.get("sha") == sha
            and seen.get("outcome") in ("clean", "skipped", "rejected", "failed")
            and (not problems or int(seen.get("tries", 1)) >= TRIES_WITH_PROBLEMS)
        )

    def penalty(self, path: str, iteration: int, sha: str) -> tuple[float, str | None]:
        seen = self.files.get(path)
        if seen is None:
            return -1.0, "never reviewed"
        same = seen.get("sha") == sha
        ago = iteration - int(seen.get("iteration", 0))
        if same and seen.get("outcome") in ("rejected", "failed"):
            return 8.0, "its last proposal failed at this content"
        if same and seen.get("outcome") in ("clean", "skipped"):
            return 6.0, f"reviewed at this content ({seen['outcome']})"
        if 0 < ago <= 2:
            return 4.0, f"reviewed {ago} iteration(s) ago"
        return 0.0, None


def candidates(
    symbols: Mapping[str, FileSymbols], restrict: Sequence[str], exclude: Iterable[str]
) -> list[str]:
    """Code files worth reviewing: not tests (unless ``restrict`` names them or their test
    folder), not the review's own files, inside ``restrict`` (files or folders) when given."""
    skip = set(exclude)
    wanted = [r.strip("/").removeprefix("./") for r in restrict]
    out = []
    for path, fs in symbols.items():
        if fs.language in ("text", "binary") or path in skip or path.startswith(".patchwright/"):
            continue
        named = any(path == w or path.startswith(w + "/") or w in ("", ".") for w in wanted)
        if wanted and not named:
            continue
        if is_test_path(path) and not any(_names_tests(w, path) for w in wanted):
            continue
        out.append(path)
    return sorted(out)


def _names_tests(wanted: str, path: str) -> bool:
    """``--target`` names this test file, or a test folder holding it."""
    inside = path.startswith(wanted + "/") and is_test_path(wanted + "/_")
    return path == wanted or inside


def _defined(symbols: Mapping[str, FileSymbols], paths: Iterable[str]) -> set[str]:
    names = {d.name for p in paths if p in symbols for d in symbols[p].definitions}
    return {n for n in names if len(n) > 2 and not n.startswith("__")}


def dependents(symbols: Mapping[str, FileSymbols], paths: Iterable[str]) -> list[str]:
    """Files (other than ``paths``) that reference a name one of ``paths`` defines."""
    chosen = set(paths)
    names = _defined(symbols, chosen)
    return sorted(
        p
        for p, fs in symbols.items()
        if p not in chosen
        and fs.language not in ("text", "binary")
        and names & fs.references.keys()
    )


def _user_counts(symbols: Mapping[str, FileSymbols], files: Sequence[str]) -> dict[str, int]:
    """How many other files use each of ``files`` (one pass over the references)."""
    users: dict[str, set[str]] = defaultdict(set)
    for path, fs in symbols.items():
        for name in fs.references:
            users[name].add(path)
    counts = {}
    for path in files:
        found: set[str] = set()
        for name in _defined(symbols, [path]):
            found |= users.get(name, set())
        counts[path] = len(found - {path})
    return counts


def _finding_score(found: list[Finding]) -> tuple[float, list[str]]:
    score = sum(f.weight for f in found if f.source != "lazy")
    score += min(LAZY_CAP, sum(f.weight for f in found if f.source == "lazy"))
    by_source: dict[str, list[Finding]] = {}
    for f in found:
        by_source.setdefault(f.source, []).append(f)
    words = {"tests": "failing test(s) run through it", "smoke": "crash(es) of the program",
             "lint": "lint finding(s)", "types": "type error(s)", "lazy": "lazy pattern(s)"}  # fmt: skip
    reasons = []
    for source in ("tests", "smoke", "lint", "types", "lazy"):
        items = by_source.get(source, [])
        if items:
            codes = ", ".join(dict.fromkeys(f.code for f in items[:4]))
            reasons.append(f"{len(items)} {words[source]} ({codes})")
    return score, reasons


def choose(
    files: Sequence[str],
    *,
    symbols: Mapping[str, FileSymbols],
    findings: Findings,
    history: History,
    shas: Mapping[str, str],
    iteration: int,
    queue: list[CascadeItem],
) -> tuple[Target | None, list[Target]]:
    """The next target (None: no candidate) and the runners-up, best first. A cascade item
    is taken off ``queue``."""
    while queue:
        item = queue.pop(0)
        if item.path in symbols:
            why = f"cascade: {item.trigger}: " + "; ".join(item.ripples[:3])
            return Target(item.path, float("inf"), (why,), item), []
    if not files:
        return None, []
    central = rank({p: symbols[p] for p in files if p in symbols}).files
    top = max(central.values(), default=0.0) or 1.0
    users = _user_counts(symbols, files)
    scored = []
    for path in files:
        score, reasons = _finding_score(findings.of(path))
        weight = CENTRALITY_WEIGHT * central.get(path, 0.0) / top
        score += weight
        if users[path]:
            reasons.append(f"used by {users[path]} file(s)")
        penalty, note = history.penalty(path, iteration, shas.get(path, ""))
        score -= penalty
        reasons += [note] if note else []
        scored.append(Target(path, score, tuple(reasons)))
    scored.sort(key=lambda t: (-t.score, PurePosixPath(t.path).parts))
    return scored[0], scored[1:6]
