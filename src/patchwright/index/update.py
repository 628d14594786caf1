"""Bringing the symbol cache up to date with the files on disk, incrementally."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from patchwright import grammars
from patchwright.index import pysymbols, symbols
from patchwright.index.files import list_index_files
from patchwright.index.model import FileSymbols
from patchwright.index.store import FileRow, SymbolStore

Progress = Callable[[int, int], None]
# an mtime this close to "now" may still change within the same clock tick: rehash next time
_RACY_NS = 2_000_000_000


@dataclass
class IndexStats:
    """What one ``update`` did: counts, the reparsed paths and the time it took."""

    files: int = 0
    parsed: int = 0
    unchanged: int = 0
    removed: int = 0
    definitions: int = 0
    seconds: float = 0.0
    parsed_paths: list[str] = field(default_factory=list)
    removed_paths: list[str] = field(default_factory=list)
    languages: dict[str, int] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """JSON form for ``patchwright index --json`` (paths list capped)."""
        return {
            "files": self.files,
            "parsed": self.parsed,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "definitions": self.definitions,
            "seconds": round(self.seconds, 3),
            "languages": self.languages,
            "unavailable_grammars": self.unavailable,
            "parsed_paths": self.parsed_paths[:50],
        }


def content_hash(data: bytes) -> str:
    """Content hash used as the cache key of a file."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def parse_file(path: str, data: bytes) -> FileSymbols:
    """Symbols of one file's bytes (text files without a grammar get none)."""
    if b"\0" in data[:8192]:
        return FileSymbols(path, "binary")
    language = grammars.language_for_path(path)
    if language is None:
        return FileSymbols(path, "text")
    result = symbols.extract(path, language, data)
    if language == "python":
        result = pysymbols.enrich(result, data)
    return result


def update_store(
    root: Path, store: SymbolStore, progress: Progress | None = None, *, max_file_bytes: int
) -> IndexStats:
    """Reparse the files whose content changed since the last run; drop deleted ones."""
    started = time.perf_counter()
    stats = IndexStats()
    files = list_index_files(root, max_file_bytes=max_file_bytes)
    rows = store.rows()
    now_ns = time.time_ns()
    stats.files = len(files)
    for done, item in enumerate(files, 1):
        _update_one(root, store, rows.get(item.path), item.path, now_ns, stats)
        if progress is not None and (done % 64 == 0 or done == len(files)):
            progress(done, len(files))
    gone = set(rows) - {f.path for f in files}
    store.delete(gone)
    stats.removed = len(gone)
    stats.removed_paths = sorted(gone)
    store.commit()
    for language, count in stats.languages.items():
        status = grammars.load(language)[1]
        if count and not status.available:
            stats.unavailable[language] = status.source
    stats.seconds = time.perf_counter() - started
    return stats


def _update_one(
    root: Path, store: SymbolStore, row: FileRow | None, path: str, now_ns: int, stats: IndexStats
) -> None:
    full = root / path
    try:
        st = full.stat()
    except OSError:
        return
    mtime = st.st_mtime_ns if now_ns - st.st_mtime_ns > _RACY_NS else 0
    if row is not None and row.mtime_ns and (row.size, row.mtime_ns) == (st.st_size, mtime):
        stats.unchanged += 1
        return
    try:
        data = full.read_bytes()
    except OSError:
        return
    sha = content_hash(data)
    new_row = FileRow(path, sha, st.st_size, mtime)
    if row is not None and row.sha == sha:
        store.touch(new_row)
        stats.unchanged += 1
        return
    parsed = parse_file(path, data)
    store.put(new_row, parsed)
    stats.parsed += 1
    stats.parsed_paths.append(path)
    stats.definitions += len(parsed.definitions)
    if parsed.language not in ("text", "binary"):
        stats.languages[parsed.language] = stats.languages.get(parsed.language, 0) + 1
