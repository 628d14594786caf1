"""Specification of a transaction's life cycle, its crash journal and the undo it leaves.

``stage`` only queues (nothing on disk, no journal); ``write`` journals then writes; a
transaction that is committed or rolled back is closed for good; a change that changes
nothing leaves no trace at all; ``b""`` is an empty file and ``None`` a deletion; new files
get the umask's mode; a dead process's journal is rolled back by :func:`recover`, folders
it created included; undo walks back what was committed, and an undo is not itself undoable.
The durable primitives (:mod:`patchwright.workspace.atomic`) keep modes and leave no temp
files behind.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from patchwright.workspace import (
    Transaction,
    TransactionError,
    UndoConflictError,
    UndoError,
    list_undo,
    recover,
)
from patchwright.workspace.atomic import atomic_write, remove_file, temp_path_for
from patchwright.workspace.transaction import new_file_mode
from patchwright.workspace.undoing import undo


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Journal keys go to a folder of this test, not the user's state folder."""
    monkeypatch.setenv("PATCHWRIGHT_STATE_DIR", str(tmp_path / "state"))


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_bytes(b"old a\n")
    (root / "run.sh").write_bytes(b"#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o750)
    return root


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file outside ``.patchwright/`` with its bytes and mode bits."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".patchwright" not in p.relative_to(root).parts
    }


def folders(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_dir() and ".patchwright" not in p.relative_to(root).parts
    )


def commit(root: Path, files: dict[str, bytes | None], label: str = "") -> str:
    with Transaction(root) as tx:
        tx.stage(files)
        return tx.commit(label)


# -- life cycle ---------------------------------------------------------------------------


def test_staging_alone_touches_no_file_and_writes_no_journal(repo: Path) -> None:
    before = tree(repo)
    tx = Transaction(repo)
    tx.stage({"a.txt": b"staged", "new/file.txt": b"n", "run.sh": None})
    assert tx.touched == ["a.txt", "new/file.txt", "run.sh"]
    assert tree(repo) == before
    assert not (repo / ".patchwright").exists()
    tx.rollback()
    assert tree(repo) == before and tx.state == "rolled_back"


def test_a_closed_transaction_refuses_further_use(repo: Path) -> None:
    done = Transaction(repo)
    done.stage({"a.txt": b"1"})
    done.commit()
    for use in (lambda: done.stage({"a.txt": b"2"}), done.write, done.commit):
        with pytest.raises(TransactionError, match="already committed"):
            use()
    dropped = Transaction(repo)
    dropped.rollback()
    dropped.rollback()  # a second rollback does nothing
    with pytest.raises(TransactionError, match="already rolled_back"):
        dropped.stage({"a.txt": b"3"})
    assert (repo / "a.txt").read_bytes() == b"1"


def test_a_change_that_changes_nothing_leaves_no_trace(repo: Path) -> None:
    assert commit(repo, {"a.txt": b"old a\n", "never.txt": None}) == ""
    assert not (repo / ".patchwright").exists()
    assert list_undo(repo) == []


def test_an_empty_content_is_an_empty_file_and_none_is_a_deletion(repo: Path) -> None:
    before = tree(repo)
    tx = Transaction(repo)
    tx.stage({"empty.txt": b"", "a.txt": None})
    tx.write()
    assert (repo / "empty.txt").read_bytes() == b""
    assert not (repo / "a.txt").exists()
    tx.rollback()
    assert tree(repo) == before


def test_binary_contents_are_written_and_restored_byte_for_byte(repo: Path) -> None:
    blob = bytes(range(256)) * 4 + b"\r\n\x00\xff"
    (repo / "data.bin").write_bytes(blob)
    before = tree(repo)
    tx = Transaction(repo)
    tx.stage({"data.bin": blob[::-1]})
    tx.write()
    assert (repo / "data.bin").read_bytes() == blob[::-1]
    tx.rollback()
    assert tree(repo) == before


def test_a_new_file_gets_the_mode_the_umask_gives_and_an_old_one_keeps_its_own(
    repo: Path,
) -> None:
    mask = os.umask(0o027)
    try:
        assert new_file_mode() == 0o640
        commit(repo, {"fresh.txt": b"x", "run.sh": b"#!/bin/sh\necho\n"})
    finally:
        os.umask(mask)
    assert stat.S_IMODE((repo / "fresh.txt").stat().st_mode) == 0o640
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == 0o750


def test_no_temporary_file_is_left_in_the_tree_after_write_or_rollback(repo: Path) -> None:
    tx = Transaction(repo)
    tx.stage({"a.txt": b"new", "deep/er/b.txt": b"b"})
    tx.write()
    assert not [p for p in repo.rglob("*.pwtmp")]
    tx.rollback()
    assert not [p for p in repo.rglob("*.pwtmp")]
    assert folders(repo) == []


# -- undo -----------------------------------------------------------------------------------


def test_undo_lists_changes_newest_first_with_labels_and_files(repo: Path) -> None:
    commit(repo, {"a.txt": b"1"}, "first")
    commit(repo, {"a.txt": b"2", "b.txt": b"b"}, "second")
    entries = list_undo(repo)
    assert [(e.label, e.files) for e in entries] == [
        ("second", ["a.txt", "b.txt"]),
        ("first", ["a.txt"]),
    ]
    assert entries[0].created >= entries[1].created


def test_undoing_a_change_removes_the_folders_it_created(repo: Path) -> None:
    commit(repo, {"pkg/sub/mod.py": b"x = 1\n"})
    assert folders(repo) == ["pkg", "pkg/sub"]
    assert undo(repo) == ["pkg/sub/mod.py"]
    assert folders(repo) == []


def test_an_undo_is_not_itself_an_undoable_change(repo: Path) -> None:
    commit(repo, {"a.txt": b"changed"})
    undo(repo)
    assert (repo / "a.txt").read_bytes() == b"old a\n"
    assert list_undo(repo) == []
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(repo)


def test_the_package_exports_the_undo_function_under_its_name() -> None:
    from patchwright.workspace import undo as exported

    assert exported is undo


def test_undo_needs_a_positive_count(repo: Path) -> None:
    commit(repo, {"a.txt": b"changed"})
    with pytest.raises(UndoError, match="at least 1"):
        undo(repo, 0)


def test_a_conflict_names_each_file_and_how_it_changed_and_touches_nothing(repo: Path) -> None:
    commit(repo, {"a.txt": b"agent", "gone.txt": b"agent made this"})
    (repo / "a.txt").write_bytes(b"user edit")
    (repo / "gone.txt").unlink()
    before = tree(repo)
    with pytest.raises(UndoConflictError) as info:
        undo(repo)
    assert info.value.files == ["a.txt", "gone.txt"]
    message = str(info.value)
    assert "a.txt (content changed)" in message and "gone.txt (deleted)" in message
    assert "--force" in message
    assert tree(repo) == before
    assert len(list_undo(repo)) == 1, "the entry stays for a later undo"


# -- crash journal --------------------------------------------------------------------------


def test_recover_of_a_repository_without_state_does_nothing(repo: Path) -> None:
    assert recover(repo) == []
    assert not (repo / ".patchwright").exists()


def test_a_dead_processes_new_folders_and_deletions_are_rolled_back(
    repo: Path, tmp_path: Path
) -> None:
    before = tree(repo)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from patchwright.workspace.transaction import Transaction
        tx = Transaction(Path({str(repo)!r}))
        tx.stage({{"run.sh": None, "x/y/z.txt": b"new", "a.txt": b"half"}})
        tx.write()
        os._exit(3)
        """
    )
    env = {**os.environ, "PATCHWRIGHT_STATE_DIR": str(tmp_path / "state")}
    subprocess.run([sys.executable, "-c", script], env=env, check=False, timeout=60)
    assert (repo / "x/y/z.txt").exists() and not (repo / "run.sh").exists()
    messages = recover(repo)
    assert len(messages) == 1
    assert "a.txt" in messages[0] and "run.sh" in messages[0]
    assert tree(repo) == before
    assert folders(repo) == []
    assert list_undo(repo) == [], "a rolled-back transaction is not an undoable change"


# -- durable primitives ------------------------------------------------------------------------


def test_atomic_write_keeps_an_existing_files_mode_unless_told_otherwise(tmp_path: Path) -> None:
    path = tmp_path / "tool.sh"
    path.write_bytes(b"old")
    os.chmod(path, 0o700)
    atomic_write(path, b"new")
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o700
    atomic_write(path, b"newer", mode=0o600)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not temp_path_for(path, "pw").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tool.sh"]


def test_the_temp_file_is_a_hidden_sibling_named_after_the_file_and_tag(tmp_path: Path) -> None:
    temp = temp_path_for(tmp_path / "src" / "a.py", "tx1")
    assert temp == tmp_path / "src" / ".a.py.tx1.pwtmp"


def test_remove_file_says_whether_it_removed_something(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("x")
    assert remove_file(path) is True
    assert remove_file(path) is False
