"""A repository's ``.patchwright/`` is untrusted input: a journal or undo entry that a cloned
repository ships, or that a command planted, is never acted on. Recovery and undo refuse
any path that leads outside the repository (absolute, ``..``, or through a symlink) and
any entry not signed with this user's journal key or tracked by git — and say why, leaving
the planted files where they are. Decoys outside the repository prove nothing was written
or deleted there."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.sandbox import Sandbox
from patchwright.workspace import journal as jr
from patchwright.workspace.errors import TransactionError, UndoError
from patchwright.workspace.recovery import recover_all, scan_undo
from patchwright.workspace.transaction import Transaction
from patchwright.workspace.undoing import list_undo, undo

EVIL = b"#!/bin/sh\necho pwned\n"
CALC = b"def add(a, b):\n    return a + b\n"
Record = dict[str, object]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATCHWRIGHT_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_bytes(CALC)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """Decoys next to the repository: a file to overwrite, one to delete, an empty folder
    to remove and a folder to delete whole."""
    folder = tmp_path / "outside"
    (folder / "emptydir").mkdir(parents=True)
    (folder / "victim").mkdir()
    (folder / "decoy.txt").write_bytes(b"precious\n")
    (folder / "gone.txt").write_bytes(b"keep me\n")
    (folder / "victim" / "data.txt").write_bytes(b"victim data\n")
    (folder / "decoy.txt").chmod(0o600)
    return folder


def assert_untouched(outside: Path) -> None:
    assert (outside / "decoy.txt").read_bytes() == b"precious\n"
    assert (outside / "decoy.txt").stat().st_mode & 0o777 == 0o600
    assert (outside / "gone.txt").read_bytes() == b"keep me\n"
    assert (outside / "emptydir").is_dir()
    assert (outside / "victim" / "data.txt").read_bytes() == b"victim data\n"


def overwrite(path: str, new_sha: str | None = None) -> Record:
    """A record saying "``path`` used to hold EVIL (mode 755): put it back"."""
    return {
        "path": path, "old_exists": True, "old_mode": 0o755,
        "old_sha": hashlib.sha256(EVIL).hexdigest(), "old_offset": 0, "old_length": len(EVIL),
        "new_exists": True, "new_sha": new_sha, "new_mode": None,
    }  # fmt: skip


def delete(path: str) -> Record:
    """A record saying "``path`` did not exist before: delete it"."""
    return {
        "path": path, "old_exists": False, "old_mode": None, "old_sha": None,
        "old_offset": len(EVIL), "old_length": 0, "new_exists": True, "new_sha": None,
    }  # fmt: skip


def plant(
    folder: Path, files: list[Record], *, dirs: list[str] | None = None,
    consumes: list[str] | None = None, signed: bool = False,
) -> Path:  # fmt: skip
    """Write a journal folder as an attacker would (``signed``: as if with this user's key,
    through patchwright's own manifest writer, to reach the path checks behind it)."""
    folder.mkdir(parents=True)
    (folder / "old.pack").write_bytes(EVIL)
    manifest = jr.Manifest(
        id=folder.name.removesuffix(".done"), kind="undo" if consumes else "change",
        files=[jr.FileRecord(**r) for r in files],  # type: ignore[arg-type]
        created_dirs=dirs or [], consumes=consumes or [],
    )  # fmt: skip
    if signed:
        jr.write_manifest(folder, manifest)
    else:
        (folder / "manifest.json").write_bytes(manifest.to_json())
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def escape_attack(to: Callable[[Path], str], outside: Path) -> tuple[list[Record], list[str]]:
    """Records and created folders naming the decoys, each written as ``to`` spells it."""
    files = [overwrite(to(outside / "decoy.txt")), delete(to(outside / "gone.txt"))]
    return files, [to(outside / "emptydir")]


SPELLINGS: dict[str, Callable[[Path, Path], Callable[[Path], str]]] = {
    "absolute": lambda repo, outside: str,
    "dotdot": lambda repo, outside: lambda p: os.path.relpath(p, repo),
    "symlink": lambda repo, outside: lambda p: f"link/{p.relative_to(outside)}",
}


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_journal_naming_paths_outside_the_repository_is_ignored(
    repo: Path, outside: Path, spelling: str, signed: bool
) -> None:
    (repo / "link").symlink_to(outside, target_is_directory=True)
    files, dirs = escape_attack(SPELLINGS[spelling](repo, outside), outside)
    folder = plant(repo / ".patchwright/journal/0001-evil", files, dirs=dirs, signed=signed)
    before = snapshot(folder)
    result = recover_all(repo)
    assert_untouched(outside)
    assert result.done == [] and result.failed == []
    (line,) = result.ignored
    assert ".patchwright/journal/0001-evil" in line
    why = "outside the repository" if signed else "not signed"
    assert why in line, line
    assert snapshot(folder) == before, "an ignored journal is left exactly as it was"


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
@pytest.mark.parametrize("absolute", [False, True], ids=["dotdot", "absolute"])
def test_a_finished_undo_consuming_folders_outside_the_undo_history_is_ignored(
    repo: Path, outside: Path, absolute: bool, signed: bool
) -> None:
    undo_dir = repo / ".patchwright" / "undo"
    undo_dir.mkdir(parents=True)  # so that undo/../../.. resolves
    victim = outside / "victim"
    entry = str(victim) if absolute else os.path.relpath(victim, undo_dir)
    folder = plant(
        repo / ".patchwright/journal/0002-evil.done", [], consumes=[entry], signed=signed
    )
    result = recover_all(repo)
    assert_untouched(outside)
    assert folder.is_dir() and result.done == []
    (line,) = result.ignored
    assert "0002-evil.done" in line
    assert ("outside .patchwright/undo" if signed else "not signed") in line, line


def test_a_journal_git_tracks_came_with_the_repository_and_is_ignored(repo: Path) -> None:
    """Even signed with this user's key (a repository of theirs, cloned again), a journal
    that git tracks was not left by a crash here."""
    calc_sha = hashlib.sha256(CALC).hexdigest()
    plant(repo / ".patchwright/journal/0003-old", [overwrite("calc.py", calc_sha)], signed=True)
    plant(repo / ".patchwright/undo/0004-old", [overwrite("calc.py", calc_sha)], signed=True)
    git(repo, "add", "-f", ".patchwright")
    git(repo, "commit", "-q", "-m", "ship a journal")
    result = recover_all(repo)
    (line,) = result.ignored
    assert "0003-old" in line and "git tracks" in line
    assert list_undo(repo) == []
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(repo)
    assert (repo / "calc.py").read_bytes() == CALC
    assert git(repo, "status", "--porcelain") == "", "nothing tracked was changed or deleted"


def test_an_unsigned_undo_entry_is_never_undone(repo: Path) -> None:
    calc_sha = hashlib.sha256(CALC).hexdigest()
    plant(repo / ".patchwright/undo/0005-planted", [overwrite("calc.py", calc_sha)])
    assert list_undo(repo) == []
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(repo)
    assert (repo / "calc.py").read_bytes() == CALC


def test_patchwrights_own_journals_still_recover_and_undo(repo: Path) -> None:
    """The checks cost nothing to the real thing: a signed journal in place recovers, and
    a committed change (journal renamed into the undo history, label added) undoes."""
    with Transaction(repo) as tx:
        tx.stage({"calc.py": b"new\n"})
        tx.commit("one")
    assert [e.label for e in list_undo(repo)] == ["one"]
    tx = Transaction(repo)
    tx.stage({"calc.py": b"newer\n", "pkg/x.py": b"x\n"})
    tx.write()
    tx._release()  # as if the process died here
    result = recover_all(repo)
    assert result.ignored == [] and len(result.done) == 1
    assert (repo / "calc.py").read_bytes() == b"new\n" and not (repo / "pkg").exists()
    assert undo(repo) == ["calc.py"] and (repo / "calc.py").read_bytes() == CALC


def test_a_sandboxed_command_cannot_plant_a_journal_under_bubblewrap(repo: Path) -> None:
    assert not (repo / ".patchwright").exists()
    sandbox = Sandbox(repo, isolation="bwrap")
    try:
        if sandbox.layer.mode != "bwrap":
            pytest.skip(f"bubblewrap is not available here: {sandbox.isolation}")
        result = sandbox.run(
            "mkdir -p .patchwright/journal/x && echo '{}' > .patchwright/journal/x/manifest.json"
        )
    finally:
        sandbox.close()
    assert result.exit_code != 0, result.stderr
    assert not (repo / ".patchwright" / "journal").exists()
    assert (repo / ".patchwright").is_dir(), "made before the command ran, then bound read-only"
    assert "patchwright" not in git(repo, "status", "--porcelain")


def test_a_journal_planted_without_bubblewrap_is_still_ignored(repo: Path, outside: Path) -> None:
    files, dirs = escape_attack(str, outside)
    records = [jr.FileRecord(**r) for r in files]  # type: ignore[arg-type]
    manifest = jr.Manifest(id="x", files=records, created_dirs=dirs)
    sandbox = Sandbox(repo, isolation="none")
    try:
        planted = [
            sandbox.run("mkdir -p .patchwright/journal/x && cat > .patchwright/journal/x/" + name,
                        stdin=data.decode())
            for name, data in (("old.pack", EVIL), ("manifest.json", manifest.to_json()))
        ]  # fmt: skip
    finally:
        sandbox.close()
    assert all(run.exit_code == 0 for run in planted), [run.stderr for run in planted]
    assert (repo / ".patchwright/journal/x/old.pack").read_bytes() == EVIL
    recovery = recover_all(repo)
    assert_untouched(outside)
    (line,) = recovery.ignored
    assert "journal/x" in line and "not signed" in line


def test_the_journal_key_is_private_and_kept_outside_the_repository(
    repo: Path, tmp_path: Path
) -> None:
    with Transaction(repo) as tx:
        tx.stage({"calc.py": b"new\n"})
        entry = tx.commit("one")
    key = tmp_path / "state" / "journal.key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert not any(p.name == "journal.key" for p in repo.rglob("*"))
    manifest = json.loads((repo / ".patchwright/undo" / entry / "manifest.json").read_bytes())
    assert len(manifest["mac"]) == 64, "the MAC rides in the manifest: one atomic write"
    key.chmod(0o644)
    (line,) = scan_undo(repo)[1]
    assert "not private" in line and "chmod 600" in line
    assert list_undo(repo) == []


def test_a_journal_signed_with_another_users_key_is_ignored(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATCHWRIGHT_STATE_DIR", str(tmp_path / "someone-else"))
    plant(repo / ".patchwright/journal/0006-theirs", [overwrite("calc.py")], signed=True)
    monkeypatch.setenv("PATCHWRIGHT_STATE_DIR", str(tmp_path / "state"))
    with Transaction(repo) as tx:  # this user has a key of their own
        tx.stage({"other.py": b"x\n"})
    (line,) = recover_all(repo).ignored
    assert "0006-theirs" in line and "does not match this user's journal key" in line
    assert (repo / "calc.py").read_bytes() == CALC


def test_a_manifest_that_is_not_json_is_a_warning_not_a_refusal(repo: Path) -> None:
    folder = repo / ".patchwright/journal/0007-garbage"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("{ damaged")
    result = recover_all(repo)
    assert result.failed == [] and result.done == []
    (line,) = result.ignored
    assert "0007-garbage" in line and "not a JSON object" in line
    assert (folder / "manifest.json").read_text() == "{ damaged"


def test_a_state_folder_symlinked_to_another_repositorys_history_is_not_used(
    repo: Path, tmp_path: Path
) -> None:
    """A repository shipping ``.patchwright/undo -> ~/other/.patchwright/undo`` would have
    ``undo`` replay (and then delete) another repository's signed history."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "calc.py").write_bytes(b"other\n")
    with Transaction(other) as tx:
        tx.stage({"calc.py": CALC})
    history = snapshot(other / ".patchwright/undo")
    (repo / ".patchwright").mkdir()
    (repo / ".patchwright/undo").symlink_to(other / ".patchwright/undo")
    (repo / ".patchwright/journal").symlink_to(other / ".patchwright/undo")
    assert list_undo(repo) == []
    with pytest.raises(UndoError, match="nothing to undo"):
        undo(repo)
    (line,) = recover_all(repo).ignored
    assert "is a symbolic link" in line
    assert snapshot(other / ".patchwright/undo") == history
    assert (repo / "calc.py").read_bytes() == CALC
    with pytest.raises(TransactionError, match="symbolic link"), Transaction(repo) as tx:
        tx.stage({"calc.py": b"x\n"})
    assert snapshot(other / ".patchwright/undo") == history


def test_a_manifest_nested_past_pythons_limit_is_ignored_too(repo: Path) -> None:
    folder = repo / ".patchwright/journal/0008-deep"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text("[" * 200_000 + "]" * 200_000)
    (line,) = recover_all(repo).ignored
    assert "0008-deep" in line and "not a JSON object" in line
