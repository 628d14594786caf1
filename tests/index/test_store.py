"""The symbol cache: rows survive a reopen, a new schema starts it empty, the memo keeps the
latest 64 values, and what is deleted or cleared is gone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from patchwright.index.model import Definition, FileSymbols
from patchwright.index.store import FileRow, SymbolStore

CALC = FileSymbols(
    "calc.py", "python", [Definition("add", "function", "calc.py", 1, 2, "def add(a, b)", "calc.add")],
    references={"sum": [2]}, imports=["math"],
)  # fmt: skip
NOTES = FileSymbols("notes.md", "text")


def filled(db: Path) -> SymbolStore:
    store = SymbolStore(db)
    store.put(FileRow("calc.py", "aa", 10, 1), CALC)
    store.put(FileRow("notes.md", "bb", 3, 2), NOTES)
    store.commit()
    return store


def test_rows_and_symbols_survive_a_reopen(tmp_path: Path) -> None:
    db = tmp_path / "cache" / "symbols.sqlite"
    filled(db).close()
    store = SymbolStore(db)
    assert store.rows() == {"calc.py": FileRow("calc.py", "aa", 10, 1),
                            "notes.md": FileRow("notes.md", "bb", 3, 2)}  # fmt: skip
    assert list(store.symbols()) == [CALC, NOTES]  # in path order
    assert list(store.symbols_of(["notes.md", "gone.py"])) == [NOTES]


def test_a_touch_records_a_new_stat_and_keeps_the_symbols(tmp_path: Path) -> None:
    store = filled(tmp_path / "s.sqlite")
    store.touch(FileRow("calc.py", "aa", 11, 99))
    store.commit()
    assert store.rows()["calc.py"] == FileRow("calc.py", "aa", 11, 99)
    assert list(store.symbols_of(["calc.py"])) == [CALC]


def test_deleted_and_cleared_files_are_gone(tmp_path: Path) -> None:
    store = filled(tmp_path / "s.sqlite")
    store.delete(["notes.md"])
    store.commit()
    assert set(store.rows()) == {"calc.py"}
    store.memo_put("map", "calc.py: add")
    store.clear()
    assert store.rows() == {} and store.memo_get("map") is None


def test_the_memo_keeps_the_latest_64_values(tmp_path: Path) -> None:
    store = SymbolStore(tmp_path / "s.sqlite")
    for i in range(70):
        store.memo_put(f"k{i}", f"v{i}")
    assert store.memo_get("k69") == "v69" and store.memo_get("k6") == "v6"
    assert store.memo_get("k5") is None  # the oldest six went
    store.memo_put("k69", "again")
    assert store.memo_get("k69") == "again"


def test_a_cache_of_another_schema_starts_empty(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite"
    filled(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value='0' WHERE key='schema'")
    assert SymbolStore(db).rows() == {}
