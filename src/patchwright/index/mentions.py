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


_QUOTED = re.compile(r"`([^`\n]{6,200})`|\"([^\"\n]{8,200})\"|'([^'\n]{8,200})'")
_ERROR_LINE = re.compile(r"^\s*[\w.]*(?:Error|Exception|Warning)\s*:\s*(.{8,200})$", re.MULTILINE)
_STEM_STOP = frozenset(
    "init main base core utils util common test tests conf setup version types type data "
    "io api cli config compat errors exceptions constants const helpers misc tools".split()
)


def literal_phrases(text: str) -> list[str]:
    """Quoted strings, inline code and error messages: text that may occur verbatim in code."""
    found: dict[str, None] = {}
    for groups in _QUOTED.findall(text):
        phrase = next(g for g in groups if g).strip()
        if len(phrase) >= 6 and not phrase.isidentifier():
            found.setdefault(phrase, None)
    for message in _ERROR_LINE.findall(text):
        found.setdefault(message.strip().strip("'\""), None)
    return list(found)[:40]


def literal_file_scores(phrases: Iterable[str], texts: Mapping[str, str]) -> dict[str, float]:
    """Files containing each phrase verbatim; a phrase found in many files counts little."""
    scores: dict[str, float] = {}
    for phrase in phrases:
        hits = [p for p, t in texts.items() if phrase in t]
        if 0 < len(hits) <= 20:
            _add(scores, hits, 1.0)
    return scores


def stem_file_scores(text: str, symbols: Mapping[str, FileSymbols]) -> dict[str, float]:
    """Files whose name (without extension) the text uses as a word, e.g. ``L027`` or
    ``irradiance``; generic names (utils, base, ...) and widely shared names are ignored."""
    by_stem: dict[str, list[str]] = defaultdict(list)
    for path, fs in symbols.items():
        if fs.language in ("text", "binary"):
            continue
        stem = PurePosixPath(path).stem
        if stem == "__init__":
            # a package by its folder name, but not the top-level package: its name is in
            # nearly every issue of the repository
            package = module_name(path).split(".")
            if len(package) < 2:
                continue
            stem = package[-1]
        if len(stem) >= 4 and stem.lower() not in _STEM_STOP:
            by_stem[stem.lower()].append(path)
    words: dict[str, int] = defaultdict(int)
    for word in _IDENT.findall(text):
        words[word.lower()] += 1
    scores: dict[str, float] = {}
    for stem, paths in by_stem.items():
        if stem in words and len(paths) <= 3:
            _add(scores, paths, float(min(words[stem], 3)))
    return scores
