"""The symbol cache: one SQLite file under ``.patchwright/cache/``.

One row per indexed file holds its stat signature, content hash and parsed symbols (JSON).
A file whose size and mtime are unchanged is not even read; one whose content hash is
unchanged is not reparsed. Bumping ``SCHEMA`` discards old caches.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from patchwright.index.model import FileSymbols

SCHEMA = "3"


@dataclass(frozen=True)
class FileRow:
    """What the cache remembers about a file besides its symbols."""

    path: str
    sha: str
    size: int
    mtime_ns: int


class SymbolStore:
    """SQLite-backed map path → (stat, hash, symbols)."""

    def __init__(self, db_path: Path) -> None:
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self.path = db_path
        self.conn = sqlite3.connect(db_path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = self.conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or row[0] != SCHEMA:
            self.conn.execute("DROP TABLE IF EXISTS files")
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA,))
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, sha TEXT NOT NULL,"
            " size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, data TEXT NOT NULL)"
        )
        self.conn.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value TEXT)")
        self.conn.commit()

    def memo_get(self, key: str) -> str | None:
        """A cached derived value (e.g. a rendered repo map) or None."""
        row = self.conn.execute("SELECT value FROM memo WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def memo_put(self, key: str, value: str) -> None:
        """Remember a derived value; the memo keeps only the latest 64 entries."""
        self.conn.execute("INSERT OR REPLACE INTO memo VALUES (?, ?)", (key, value))
        self.conn.execute(
            "DELETE FROM memo WHERE rowid NOT IN (SELECT rowid FROM memo ORDER BY rowid DESC LIMIT 64)"
        )
        self.conn.commit()

    def rows(self) -> dict[str, FileRow]:
        """Stat and hash of every cached file."""
        cur = self.conn.execute("SELECT path, sha, size, mtime_ns FROM files")
        return {r[0]: FileRow(r[0], r[1], r[2], r[3]) for r in cur}

    def put(self, row: FileRow, symbols: FileSymbols) -> None:
        """Insert or replace a file's row (commit with ``commit``)."""
        self.conn.execute(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
            (row.path, row.sha, row.size, row.mtime_ns, json.dumps(symbols.to_json())),
        )

    def touch(self, row: FileRow) -> None:
        """Record a new stat for a file whose content did not change."""
        self.conn.execute(
            "UPDATE files SET size=?, mtime_ns=? WHERE path=?", (row.size, row.mtime_ns, row.path)
        )

    def delete(self, paths: Iterable[str]) -> None:
        """Forget files that no longer exist."""
        self.conn.executemany("DELETE FROM files WHERE path=?", [(p,) for p in paths])

    def clear(self) -> None:
        """Forget everything (``patchwright index --rebuild``)."""
        self.conn.execute("DELETE FROM files")
        self.conn.execute("DELETE FROM memo")
        self.conn.commit()

    def commit(self) -> None:
        """Make the changes durable."""
        self.conn.commit()

    def symbols(self) -> Iterator[FileSymbols]:
        """Every cached file's symbols, in path order."""
        for (data,) in self.conn.execute("SELECT data FROM files ORDER BY path"):
            yield FileSymbols.from_json(json.loads(data))

    def symbols_of(self, paths: Iterable[str]) -> Iterator[FileSymbols]:
        """The cached symbols of the given files (those that are cached)."""
        for path in paths:
            row = self.conn.execute("SELECT data FROM files WHERE path=?", (path,)).fetchone()
            if row is not None:
                yield FileSymbols.from_json(json.loads(row[0]))

    def close(self) -> None:
        """Close the database."""
        self.conn.close()
