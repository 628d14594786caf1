"""What a task text names explicitly: file paths, module paths and code identifiers."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from patchwright.index.model import FileSymbols
from patchwright.index.pysymbols import module_name

_PATHLIKE = re.compile(r"[\w./\\-]+\.[A-Za-z]{1,5}\b")
_DOTTED = re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+\b")
_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
_BACKTICKED = re.compile(r"`([^`\n]{1,120})`")


@dataclass
class Mentions:
    """Scores per file for being named, and the code identifiers the text uses."""

    files: dict[str, float] = field(default_factory=dict)
    identifiers: set[str] = field(default_factory=set)


def _codeish(word: str) -> bool:
    return "_" in word or (any(c.isupper() for c in word[1:]) and any(c.islower() for c in word))


def code_identifiers(text: str) -> set[str]:
    """Identifiers that look like code: snake_case, camelCase, dotted parts, or backticked."""
    found = {w for w in _IDENT.findall(text) if _codeish(w)}
    for dotted in _DOTTED.findall(text):
        found.update(p for p in dotted.split(".") if len(p) > 2)
    for quoted in _BACKTICKED.findall(text):
        found.update(w for w in _IDENT.findall(quoted) if len(w) > 2)
    return found


def find_mentions(text: str, symbols: Mapping[str, FileSymbols]) -> Mentions:
    """Files the text names (by path suffix, file name or module path) and identifiers
    defined in the repository that the text uses (weighted by how few files define them)."""
    out = Mentions()
    by_suffix: dict[str, set[str]] = defaultdict(set)
    by_module: dict[str, set[str]] = defaultdict(set)
    for path in symbols:
        parts = PurePosixPath(path).parts
        for i in range(len(parts)):
            by_suffix["/".join(parts[i:])].add(path)
        if path.endswith(".py"):
            mod = module_name(path)
            pieces = mod.split(".")
            for i in range(len(pieces)):
                if len(pieces) - i >= 2 or i == 0:
                    by_module[".".join(pieces[i:])].add(path)
    for raw in _PATHLIKE.findall(text):
        cand = raw.replace("\\", "/").lstrip("./")
        parts = cand.split("/")
        for i in range(len(parts)):
            hits = by_suffix.get("/".join(parts[i:]))
            if hits:
                _add(out.files, hits, 1.0 if i == 0 or len(parts) - i > 1 else 0.6)
                break
    for dotted in _DOTTED.findall(text):
        pieces = dotted.split(".")
        for i in range(len(pieces) - 1):
            hits = by_module.get(".".join(pieces[: len(pieces) - i]))
            if hits:
                _add(out.files, hits, 0.8)
                break
    defined = _defined_names(symbols)
    out.identifiers = {w for w in code_identifiers(text) if w in defined}
    return out


def _add(scores: dict[str, float], paths: Iterable[str], weight: float) -> None:
    paths = list(paths)
    for path in paths:
        scores[path] = scores.get(path, 0.0) + weight / len(paths)


def _defined_names(symbols: Mapping[str, FileSymbols]) -> set[str]:
    return {d.name for fs in symbols.values() for d in fs.definitions}


def identifier_file_scores(
    identifiers: Iterable[str], symbols: Mapping[str, FileSymbols]
) -> dict[str, float]:
    """Files defining the identifiers, each name's weight split over its defining files."""
    defines: dict[str, set[str]] = defaultdict(set)
    wanted = set(identifiers)
    for path, fs in symbols.items():
        for d in fs.definitions:
            if d.name in wanted:
                defines[d.name].add(path)
    scores: dict[str, float] = {}
    for paths in defines.values():
        _add(scores, paths, 1.0)
    return scores
