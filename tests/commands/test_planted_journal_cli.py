"""On the command line, a journal or undo entry that patchwright cannot trust — planted by a
cloned repository or by a command — is never recovered or undone: every command warns on
stderr which folder it ignored and why, leaves it in place, and goes on. Decoys next to the
repository prove that nothing outside it was written or deleted."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from patchwright.cli import app
from patchwright.sandbox import Sandbox
from patchwright.workspace import journal as jr

EVIL = b"#!/bin/sh\necho pwned\n"
CALC = b"def add(a, b):\n    return a + b\n"


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
    outside = tmp_path / "outside"
    (outside / "victim").mkdir(parents=True)
    (outside / "decoy.txt").write_bytes(b"precious\n")
    (outside / "gone.txt").write_bytes(b"keep me\n")
    (outside / "victim" / "data.txt").write_bytes(b"victim data\n")
    return root


def outside_of(repo: Path) -> Path:
    return repo.parent / "outside"


def assert_untouched(repo: Path) -> None:
    outside = outside_of(repo)
    assert (outside / "decoy.txt").read_bytes() == b"precious\n"
    assert (outside / "gone.txt").read_bytes() == b"keep me\n"
    assert (outside / "victim" / "data.txt").read_bytes() == b"victim data\n"
    assert (repo / "calc.py").read_bytes() == CALC


def manifest(name: str, paths: list[str], consumes: list[str] | None = None) -> jr.Manifest:
    """Restore EVIL (mode 755) into the first path, delete the others."""
    sha = hashlib.sha256(EVIL).hexdigest()
    files = [
        jr.FileRecord(path, i == 0, 0o755 if i == 0 else None, sha if i == 0 else None, 0,
                      len(EVIL) if i == 0 else 0, True, hashlib.sha256(CALC).hexdigest())
        for i, path in enumerate(paths)
    ]  # fmt: skip
    kind = "undo" if consumes else "change"
    return jr.Manifest(id=name, kind=kind, files=files, consumes=consumes or [])


def plant(folder: Path, data: jr.Manifest, *, signed: bool = False) -> None:
    folder.mkdir(parents=True)
    (folder / "old.pack").write_bytes(EVIL)
    if signed:
        jr.write_manifest(folder, data)
    else:
        (folder / "manifest.json").write_bytes(data.to_json())


def escape(spell: Callable[[Path, Path], str]) -> Callable[[Path], str]:
    def attack(repo: Path) -> str:
        out = outside_of(repo)
        paths = [spell(repo, out / "decoy.txt"), spell(repo, out / "gone.txt")]
        plant(repo / ".patchwright/journal/0001-evil", manifest("0001-evil", paths))
        return "0001-evil"

    return attack


def symlinked(repo: Path) -> str:
    (repo / "link").symlink_to(outside_of(repo), target_is_directory=True)
    return escape(lambda _repo, path: f"link/{path.name}")(repo)


def consumes_outside(repo: Path) -> str:
    (repo / ".patchwright/undo").mkdir(parents=True)
    victim = os.path.relpath(outside_of(repo) / "victim", repo / ".patchwright/undo")
    plant(repo / ".patchwright/journal/0002.done", manifest("0002", [], [victim]), signed=True)
    return "0002.done"


def committed(repo: Path) -> str:
    plant(repo / ".patchwright/journal/0003", manifest("0003", ["calc.py"]), signed=True)
    git(repo, "add", "-f", ".patchwright")
    git(repo, "commit", "-q", "-m", "ship a journal")
    return "0003"


def from_the_sandbox(repo: Path) -> str:
    data = manifest("x", [str(outside_of(repo) / "decoy.txt")]).to_json()
    sandbox = Sandbox(repo, isolation="none")
    try:
        for name, content in (("old.pack", EVIL), ("manifest.json", data)):
            result = sandbox.run(
                f"mkdir -p .patchwright/journal/x && cat > .patchwright/journal/x/{name}",
                stdin=content.decode(),
            )
            assert result.exit_code == 0, result.stderr
    finally:
        sandbox.close()
    return "x"


CASES: dict[str, tuple[Callable[[Path], str], str]] = {
    "absolute": (escape(lambda repo, path: str(path)), "not signed"),
    "dotdot": (escape(lambda repo, path: os.path.relpath(path, repo)), "not signed"),
    "symlink": (symlinked, "not signed"),
    "consumes": (consumes_outside, "outside .patchwright/undo"),
    "committed": (committed, "git tracks it"),
    "sandbox": (from_the_sandbox, "not signed"),
}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.mark.parametrize("case", list(CASES))
def test_log_says_why_it_ignored_a_planted_journal_and_touches_nothing(
    repo: Path, case: str
) -> None:
    attack, why = CASES[case]
    name = attack(repo)
    result = invoke("log", "--repo", str(repo))
    assert_untouched(repo)
    warning = f"patchwright: warning: ignored .patchwright/journal/{name}: "
    assert warning in result.stderr and why in result.stderr, result.stderr
    assert "left in place" in result.stderr
    assert result.exit_code == 2 and "no record of any run" in result.stderr, "it went on"
    assert (repo / ".patchwright/journal" / name / "manifest.json").is_file()
    if case == "committed":
        assert git(repo, "status", "--porcelain") == ""


def test_a_command_goes_on_after_ignoring_a_planted_journal(repo: Path) -> None:
    escape(lambda repo, path: str(path))(repo)
    result = invoke("exec", "--repo", str(repo), "--json", "--", "touch ran")
    assert result.exit_code == 0, result.output
    assert (repo / "ran").exists()
    assert "ignored .patchwright/journal/0001-evil" in result.stderr
    assert_untouched(repo)


def test_undo_skips_a_planted_undo_entry_and_says_so(repo: Path) -> None:
    plant(repo / ".patchwright/undo/0009-planted", manifest("0009", ["calc.py"]))
    listed = invoke("undo", "--list", "--repo", str(repo))
    assert listed.exit_code == 0 and "nothing to undo" in listed.stdout
    assert "ignored .patchwright/undo/0009-planted: " in listed.stderr
    assert "not signed" in listed.stderr
    result = invoke("undo", "--repo", str(repo))
    assert result.exit_code == 1 and "nothing to undo" in result.output
    assert_untouched(repo)
    assert (repo / ".patchwright/undo/0009-planted/manifest.json").is_file()
