"""Transactions: stage, write atomically, roll back byte-for-byte, commit with an undo entry,
recover what a dead process left behind."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from patchwright.workspace.errors import PathEscapeError, TransactionError
from patchwright.workspace.transaction import Transaction, recover


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_bytes(b"old a\r\n")
    (tmp_path / "b.sh").write_bytes(b"#!/bin/sh\necho old\n")
    os.chmod(tmp_path / "b.sh", 0o755)
    return tmp_path


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".patchwright" not in p.parts
    }


def test_write_puts_new_contents_and_keeps_modes(repo: Path) -> None:
    tx = Transaction(repo)
    tx.stage({"a.txt": b"new a", "b.sh": b"#!/bin/sh\necho new\n", "sub/dir/c.txt": b"c"})
    tx.write()
    assert (repo / "a.txt").read_bytes() == b"new a"
    assert stat.S_IMODE((repo / "b.sh").stat().st_mode) == 0o755
    assert (repo / "sub/dir/c.txt").read_bytes() == b"c"
    assert any((repo / ".patchwright/journal").iterdir())
    tx.rollback()


def test_rollback_restores_everything_byte_for_byte(repo: Path) -> None:
    before = snapshot(repo)
    tx = Transaction(repo)
    tx.stage({"a.txt": b"x", "b.sh": None, "new/deep/file.py": b"print()\n"})
    tx.write()
    assert not (repo / "b.sh").exists()
    tx.rollback()
    assert snapshot(repo) == before
    assert not (repo / "new").exists(), "folders created by the transaction are removed"
    assert list((repo / ".patchwright/journal").iterdir()) == []


def test_exception_inside_with_rolls_back_and_clean_exit_commits(repo: Path) -> None:
    before = snapshot(repo)
    with pytest.raises(RuntimeError), Transaction(repo) as tx:
        tx.stage({"a.txt": b"changed"})
        tx.write()
        raise RuntimeError("gate failed")
    assert snapshot(repo) == before
    with Transaction(repo) as tx:
        tx.stage({"a.txt": b"changed"})
    assert (repo / "a.txt").read_bytes() == b"changed"
    assert tx.state == "committed"


def test_commit_pushes_an_undo_entry_and_drops_the_journal(repo: Path) -> None:
    tx = Transaction(repo)
    tx.stage({"a.txt": b"v2"})
    tx.write()
    entry = tx.commit("first change")
    assert entry and (repo / ".patchwright/undo" / entry / "manifest.json").is_file()
    assert list((repo / ".patchwright/journal").iterdir()) == []
    with pytest.raises(TransactionError):
        tx.rollback()


def test_commit_of_no_real_change_returns_empty_id(repo: Path) -> None:
    tx = Transaction(repo)
    tx.stage({"a.txt": b"old a\r\n", "missing.txt": None})
    assert tx.commit() == ""
    assert not (repo / ".patchwright/undo").exists()


def test_stage_refuses_escapes_and_internal_folders(repo: Path) -> None:
    tx = Transaction(repo)
    with pytest.raises(PathEscapeError):
        tx.stage({"../evil": b"x"})
    for internal in (".git/hooks/pre-commit", ".patchwright/undo/x"):
        with pytest.raises(TransactionError, match="not editable"):
            tx.stage({internal: b"x"})
    with pytest.raises(TransactionError, match="not a directory"):
        tx.stage({"a.txt/inner": b"x"})
    assert tx.touched == []


def test_staging_more_after_write_extends_the_same_transaction(repo: Path) -> None:
    before = snapshot(repo)
    tx = Transaction(repo)
    tx.stage({"a.txt": b"1"})
    tx.write()
    tx.stage({"a.txt": b"2", "b.sh": b"3"})
    tx.write()
    assert tx.touched == ["a.txt", "b.sh"]
    tx.rollback()
    assert snapshot(repo) == before


def test_git_exclude_gets_patchwright_folder(repo: Path) -> None:
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    with Transaction(repo) as tx:
        tx.stage({"a.txt": b"z"})
    assert ".patchwright/" in (repo / ".git/info/exclude").read_text().splitlines()
    status = subprocess.run(
        ["git", "status", "--porcelain"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert ".patchwright" not in status


def test_recover_rolls_back_a_transaction_whose_process_died(repo: Path) -> None:
    before = snapshot(repo)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from patchwright.workspace.transaction import Transaction
        tx = Transaction(Path({str(repo)!r}))
        tx.stage({{"a.txt": b"half", "b.sh": None, "n.txt": b"n"}})
        tx.write()
        os._exit(9)  # dies without commit or rollback
        """
    )
    subprocess.run([sys.executable, "-c", script], check=False, timeout=120)
    assert (repo / "a.txt").read_bytes() == b"half"
    messages = recover(repo)
    assert len(messages) == 1 and "rolled back" in messages[0]
    assert snapshot(repo) == before
    assert recover(repo) == []


def test_recover_leaves_a_live_transaction_alone(repo: Path) -> None:
    tx = Transaction(repo)
    tx.stage({"a.txt": b"in progress"})
    tx.write()
    assert recover(repo) == []
    assert (repo / "a.txt").read_bytes() == b"in progress"
    tx.commit()


def test_failure_while_journaling_touches_nothing_and_rolls_back_cleanly(repo: Path) -> None:
    before = snapshot(repo)
    os.mkfifo(repo / "pipe")
    tx = Transaction(repo)
    tx.stage({"a.txt": b"new", "pipe": b"data"})
    with pytest.raises(TransactionError, match="not a regular file"):
        tx.write()
    assert snapshot(repo) == before
    assert tx.state == "rolled_back"
    assert recover(repo) == []


def test_a_failed_later_write_rolls_back_the_earlier_ones_too(repo: Path) -> None:
    before = snapshot(repo)
    os.mkfifo(repo / "pipe")
    tx = Transaction(repo)
    tx.stage({"a.txt": b"first write"})
    tx.write()
    tx.stage({"pipe": b"data"})
    with pytest.raises(TransactionError, match="rolled back"):
        tx.write()
    assert snapshot(repo) == before
