"""Keyword relevance scoring of files against a task, used when no index is available.

Like autonomous_agent's context builder: words and identifiers of the task are weighted by
how rare they are across the repository (idf), and a file scores by the terms its path and
content contain. Mentions of a file's path or name in the task dominate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STOP = frozenset(
    """the and for with that this from into when then than are was were not but you your
    have has had should would could can will must use using make makes made add fix bug
    file files code test tests function method class return returns value values also its
    there their them they what which while where who why how all any each other some such
    only just like more most very one two new old get set""".split()
)


def task_terms(task: str) -> list[str]:
    """Distinct lower-cased terms of ``task`` worth matching, identifiers split on ``_``."""
    terms: list[str] = []
    for word in _WORD.findall(task):
        for part in [word, *word.split("_")]:
            low = part.lower()
            if len(low) >= 3 and low not in _STOP and low not in terms:
                terms.append(low)
    return terms


def mentioned_files(task: str, paths: Sequence[str]) -> list[str]:
    """Files whose relative path, or unique file name, appears in the task text."""
    found: list[str] = []
    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(PurePosixPath(path).name, []).append(path)
    for path in sorted(paths, key=len, reverse=True):
        if path not in found and re.search(_named(path), task):
            found.append(path)
    for name, candidates in by_name.items():
        if len(candidates) == 1 and candidates[0] not in found and re.search(_named(name), task):
            found.append(candidates[0])
    return found


def _named(path: str) -> str:
    """``path`` as a whole word: ``main.py`` is not named by ``test_main.py``."""
    return rf"(?:(?<![\w/.-])|(?<=\./)){re.escape(path)}(?![\w-])"


def rank_files(task: str, texts: Mapping[str, str]) -> list[tuple[str, float]]:
    """Files ordered by relevance to ``task`` (best first); files scoring zero are left out."""
    terms = task_terms(task)
    if not terms or not texts:
        return []
    lowered = {path: text.lower() for path, text in texts.items()}
    df = {t: sum(1 for text in lowered.values() if t in text) for t in terms}
    n = len(texts)
    scores: list[tuple[str, float]] = []
    for path, text in lowered.items():
        low_path = path.lower()
        score = 0.0
        for term in terms:
            idf = math.log(1 + n / (1 + df[term]))
            hits = text.count(term)
            if hits:
                score += idf * (1 + math.log(hits))
            if term in low_path:
                score += 3 * idf
        if score > 0:
            scores.append((path, score / (1 + math.log(1 + len(text) / 4000))))
    scores.sort(key=lambda item: (-item[1], item[0]))
    return scores


_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w., ]+))", re.M)


def imported_files(text: str, paths: Sequence[str]) -> list[str]:
    """Repository files a Python source imports (``from pkg.mod import x`` → ``pkg/mod.py``
    or ``pkg/mod/__init__.py``, found at any depth so ``src/`` layouts resolve too)."""
    modules: list[str] = []
    for source, names in _IMPORT.findall(text):
        for module in [source] if source else names.split(","):
            module = module.strip().split(" ")[0].lstrip(".")
            if module and module not in modules:
                modules.append(module)
    found: list[str] = []
    for module in modules:
        base = module.replace(".", "/")
        for suffix in (f"{base}.py", f"{base}/__init__.py"):
            hits = [p for p in paths if p == suffix or p.endswith("/" + suffix)]
            if len(hits) == 1 and hits[0] not in found:
                found.append(hits[0])
    return found
