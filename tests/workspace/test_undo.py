"""Undo: restore the state before the last N patchwright changes, refusing to clobber the
user's own edits unless forced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patchwright.workspace import journal as jr
from patchwright.workspace.errors import UndoConflictError, UndoError
from patchwright.workspace.transaction import Transaction
from patchwright.workspace.undoing import list_undo, undo


def change(root: Path, files: dict[str, bytes | None], label: str = "") -> str:
    with Transaction(root) as tx:
        tx.stage(files)
        tx.write()
        return tx.commit(label)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_bytes(b"a = 0\n")
    (tmp_path / "b.py").write_bytes(b"b = 0\n")
    return tmp_path


def test_undo_restores_the_last_change_only(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"}, "one")
    change(repo, {"a.py": b"a = 2\n", "b.py": b"b = 2\n", "c.py": b"c\n"}, "two")
    assert undo(repo) == ["a.py", "b.py", "c.py"]
    assert (repo / "a.py").read_bytes() == b"a = 1\n"
    assert (repo / "b.py").read_bytes() == b"b = 0\n"
    assert not (repo / "c.py").exists()
    assert [e.label for e in list_undo(repo)] == ["one"]


def test_undo_n_walks_back_several_changes_and_recreates_deleted_files(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"})
    change(repo, {"b.py": None, "pkg/new.py": b"x\n"})
    change(repo, {"a.py": b"a = 3\n"})
    restored = undo(repo, 3)
    assert restored == ["a.py", "b.py", "pkg/new.py"]
    assert (repo / "a.py").read_bytes() == b"a = 0\n"
    assert (repo / "b.py").read_bytes() == b"b = 0\n"
    assert not (repo / "pkg").exists()
    assert list_undo(repo) == []


def test_undo_refuses_and_names_files_the_user_changed_since(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n", "b.py": b"b = 1\n"})
    (repo / "b.py").write_bytes(b"b = user edit\n")
    with pytest.raises(UndoConflictError) as info:
        undo(repo)
    assert info.value.files == ["b.py"]
    assert "b.py" in str(info.value) and "--force" in str(info.value)
    assert (repo / "a.py").read_bytes() == b"a = 1\n", "a refused undo changes nothing"
    assert (repo / "b.py").read_bytes() == b"b = user edit\n"
    assert len(list_undo(repo)) == 1


def test_force_overwrites_the_users_changes(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"})
    (repo / "a.py").write_bytes(b"user\n")
    assert undo(repo, force=True) == ["a.py"]
    assert (repo / "a.py").read_bytes() == b"a = 0\n"


def test_user_edit_between_two_changes_blocks_undoing_the_older_one(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"})
    (repo / "a.py").write_bytes(b"a = user\n")
    change(repo, {"a.py": b"a = 2\n"})
    assert undo(repo, 1) == ["a.py"]
    assert (repo / "a.py").read_bytes() == b"a = user\n"
    with pytest.raises(UndoConflictError, match=r"a\.py"):
        undo(repo, 1)


def test_deleted_file_recreated_by_user_is_a_conflict(repo: Path) -> None:
    change(repo, {"b.py": None})
    (repo / "b.py").write_bytes(b"mine\n")
    with pytest.raises(UndoConflictError):
        undo(repo)


def test_nothing_or_not_enough_to_undo_is_a_clear_error(repo: Path) -> None:
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(repo)
    change(repo, {"a.py": b"a = 1\n"})
    with pytest.raises(UndoError, match="only 1"):
        undo(repo, 2)
    with pytest.raises(UndoError, match="at least 1"):
        undo(repo, 0)


def test_undo_keeps_file_modes(repo: Path) -> None:
    (repo / "run.sh").write_bytes(b"#!/bin/sh\n")
    (repo / "run.sh").chmod(0o750)
    change(repo, {"run.sh": None})
    undo(repo)
    assert (repo / "run.sh").stat().st_mode & 0o777 == 0o750


def test_old_entries_are_pruned_beyond_the_limit(repo: Path) -> None:
    for i in range(5):
        with Transaction(repo, keep_undo=3) as tx:
            tx.stage({"a.py": f"a = {i}\n".encode()})
    assert len(list_undo(repo)) == 3


def mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_a_mode_the_user_changed_since_is_a_conflict_like_an_edit(repo: Path) -> None:
    (repo / "a.py").chmod(0o644)
    change(repo, {"a.py": b"a = 1\n"})
    (repo / "a.py").chmod(0o755)
    with pytest.raises(UndoConflictError, match=r"a\.py \(mode changed from 644 to 755\)") as info:
        undo(repo)
    assert info.value.files == ["a.py"]
    assert mode(repo / "a.py") == 0o755 and (repo / "a.py").read_bytes() == b"a = 1\n"
    assert undo(repo, force=True) == ["a.py"]
    assert mode(repo / "a.py") == 0o644 and (repo / "a.py").read_bytes() == b"a = 0\n"


def test_a_file_patchwright_created_then_made_executable_is_a_conflict(repo: Path) -> None:
    change(repo, {"tool.sh": b"#!/bin/sh\n"})
    (repo / "tool.sh").chmod(mode(repo / "tool.sh") | 0o100)
    with pytest.raises(UndoConflictError, match=r"tool\.sh \(mode changed"):
        undo(repo)
    assert (repo / "tool.sh").exists()


def test_a_mode_changed_back_is_no_conflict(repo: Path) -> None:
    (repo / "a.py").chmod(0o640)
    change(repo, {"a.py": b"a = 1\n"})
    (repo / "a.py").chmod(0o755)
    (repo / "a.py").chmod(0o640)
    assert undo(repo) == ["a.py"]
    assert mode(repo / "a.py") == 0o640


def test_a_mode_change_between_two_changes_blocks_undoing_the_older_one(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"})
    (repo / "a.py").chmod(0o700)
    change(repo, {"a.py": b"a = 2\n"})
    assert undo(repo) == ["a.py"]
    assert mode(repo / "a.py") == 0o700
    with pytest.raises(UndoConflictError, match="mode changed"):
        undo(repo)


def test_entries_written_before_modes_were_recorded_check_content_only(repo: Path) -> None:
    change(repo, {"a.py": b"a = 1\n"})
    (entry,) = (repo / ".patchwright" / "undo").iterdir()
    manifest = json.loads((entry / "manifest.json").read_text())
    del manifest["mac"]
    for record in manifest["files"]:
        del record["new_mode"]
    jr.write_manifest(entry, jr.Manifest.from_dict(manifest))  # signed, as patchwright writes
    (repo / "a.py").chmod(0o755)
    assert undo(repo) == ["a.py"]
    assert (repo / "a.py").read_bytes() == b"a = 0\n"
