"""Lexical search: exact and regex with line numbers, fuzzy path finding, BM25 over chunks.

BM25 documents are code chunks cut at definition boundaries (each definition's own lines up
to the next definition, plus a file-head chunk), so a hit names the function it lies in.
Identifiers are split into their snake_case and camelCase parts and kept whole as well.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patchwright.index.model import FileSymbols
from patchwright.index.pysymbols import module_name

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_STOP = frozenset(
    "the a an and or of to in is it be for on with as at by this that from not are was if "
    "self def return none true false import class".split()
)
MAX_CHUNK_LINES = 120


@dataclass(frozen=True)
class Hit:
    """A search result: ``line`` is 1-based (0 for whole-file hits), ``text`` the line."""

    path: str
    line: int
    score: float
    text: str = ""
    name: str = ""


@dataclass(frozen=True)
class Chunk:
    """A piece of a file for BM25: lines ``start``..``end`` (1-based, inclusive)."""

    path: str
    start: int
    end: int
    name: str
    line: int


def tokenize(text: str) -> list[str]:
    """Lower-cased words, identifiers also split into their parts; stop words dropped."""
    out: list[str] = []
    for word in _WORD.findall(text):
        lower = word.lower()
        if lower not in _STOP and len(lower) > 1:
            out.append(lower)
        if "_" in word or not (word.islower() or word.isupper()):
            parts = [p.lower() for piece in word.split("_") for p in _CAMEL.findall(piece)]
            if len(parts) > 1:
                out.extend(p for p in parts if len(p) > 1 and p not in _STOP)
    return out


def chunks_of(fs: FileSymbols, n_lines: int) -> list[Chunk]:
    """Cut a file at its definitions' first lines; long pieces split every MAX_CHUNK_LINES."""
    starts = sorted({d.line for d in fs.definitions if 1 <= d.line <= n_lines})
    names: dict[int, str] = {}
    prefix = module_name(fs.path) + "." if fs.language == "python" else ""
    for d in sorted(fs.definitions, key=lambda d: (d.line, -d.end_line)):
        local = d.qualname.removeprefix(prefix) if prefix else d.qualname
        names.setdefault(d.line, local or d.name)
    bounds = [1, *[s for s in starts if s > 1], n_lines + 1]
    out: list[Chunk] = []
    for begin, stop in itertools.pairwise(bounds):
        name = names.get(begin, "")
        for piece in range(begin, stop, MAX_CHUNK_LINES):
            end = min(stop - 1, piece + MAX_CHUNK_LINES - 1)
            out.append(Chunk(fs.path, piece, end, name, begin))
    return out


class BM25Index:
    """BM25 (bm25s) over the code chunks of a set of files."""

    def __init__(self, chunks: Sequence[Chunk], texts: Sequence[str]) -> None:
        import bm25s

        self.chunks = list(chunks)
        self.model: Any = bm25s.BM25()
        corpus = [tokenize(t) or ["_empty_"] for t in texts]
        if corpus:
            self.model.index(corpus, show_progress=False)

    @classmethod
    def build(cls, root: Path, symbols: Mapping[str, FileSymbols]) -> tuple[BM25Index, BM25Index]:
        """Read each code file once; index its chunks, and the whole files."""
        chunks: list[Chunk] = []
        texts: list[str] = []
        files: list[Chunk] = []
        file_texts: list[str] = []
        for path, fs in symbols.items():
            if fs.language in ("text", "binary"):
                continue
            try:
                text = (root / path).read_text("utf-8", "replace")
            except OSError:
                continue
            lines = text.split("\n")
            header = " ".join(path.replace("/", " ").replace(".", " ").split())
            files.append(Chunk(path, 1, len(lines), "", 1))
            file_texts.append(f"{header}\n{text}")
            for chunk in chunks_of(fs, len(lines)):
                chunks.append(chunk)
                body = "\n".join(lines[chunk.start - 1 : chunk.end])
                texts.append(f"{header} {chunk.name}\n{body}")
        return cls(chunks, texts), cls(files, file_texts)

    def chunk_scores(self, query: str) -> list[tuple[Chunk, float]]:
        """Every chunk with a positive score, best first."""
        if not self.chunks:
            return []
        vocab = self.model.vocab_dict
        tokens = [t for t in tokenize(query) if t in vocab]
        if not tokens:
            return []
        scores = self.model.get_scores(tokens)
        order = scores.argsort()[::-1]
        return [(self.chunks[i], float(scores[i])) for i in order if scores[i] > 0]

    def file_scores(self, query: str) -> dict[str, float]:
        """Per file: its best chunk's score plus a tenth of the rest (documents many hits)."""
        best: dict[str, float] = {}
        rest: dict[str, float] = {}
        for chunk, score in self.chunk_scores(query):
            if chunk.path not in best:
                best[chunk.path] = score
            else:
                rest[chunk.path] = rest.get(chunk.path, 0.0) + score
        return {p: s + 0.1 * rest.get(p, 0.0) for p, s in best.items()}


def grep(
    root: Path, paths: Iterable[str], pattern: str, *, regex: bool, limit: int = 200
) -> list[Hit]:
    """Lines matching ``pattern`` (a literal, or a Python regex), in path order."""
    compiled = re.compile(pattern if regex else re.escape(pattern))
    needle = None if regex else pattern.encode("utf-8")
    hits: list[Hit] = []
    for path in paths:
        try:
            data = (root / path).read_bytes()
        except OSError:
            continue
        if (needle is not None and needle not in data) or b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", "replace")
        pos, line_no = 0, 1
        for match in compiled.finditer(text):
            line_no += text.count("\n", pos, match.start())
            pos = match.start()
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            line = text[line_start : line_end if line_end != -1 else len(text)]
            if hits and hits[-1].path == path and hits[-1].line == line_no:
                continue
            hits.append(Hit(path, line_no, 1.0, line.strip()[:300]))
            if len(hits) >= limit:
                return hits
    return hits


def fuzzy_files(paths: Sequence[str], query: str, k: int = 10) -> list[Hit]:
    """Paths most like ``query`` (rapidfuzz WRatio, basename matches boosted)."""
    from rapidfuzz import fuzz, process

    results = process.extract(query, paths, scorer=fuzz.WRatio, limit=max(k * 3, k))
    scored = []
    for path, score, _ in results:
        base = path.rsplit("/", 1)[-1]
        bonus = 10.0 if query.lower() in base.lower() else 0.0
        scored.append(Hit(path, 0, round(float(score) + bonus, 2)))
    scored.sort(key=lambda h: (-h.score, len(h.path)))
    return scored[:k]
