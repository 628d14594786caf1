"""Recovery at every start: every command that reads or writes a repository first rolls back
a transaction a dead patchwright left half-written, says so on stderr and in its JSON, and
only then looks at the files — so it never sees a mix of old and new files."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from patchwright.cli import app

OLD = {"calc.py": "def add(a, b):\n    return a + b\n", "notes.txt": "old notes\n"}
NEW = {
    "calc.py": "def add(a, b):\n    return a + b\n\n\ndef half_written_marker():\n    return 1\n",
    "notes.txt": "half_written_marker notes\n",
}

_DIE_MID_TRANSACTION = """
import os, sys
from pathlib import Path
from patchwright.workspace.transaction import Transaction
tx = Transaction(Path(sys.argv[1]))
tx.stage({name: text.encode() for name, text in %r.items()})
tx.write()
print(tx.id, flush=True)
os._exit(9)  # dies between write and commit, as a SIGKILL would
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    for name, text in OLD.items():
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def half_write(root: Path) -> None:
    """Leave a transaction half-written: a dead process's journal, one file already new,
    one still old, and the temp file of a rename that never happened."""
    proc = subprocess.run(
        [sys.executable, "-c", _DIE_MID_TRANSACTION % (NEW,), str(root)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 9, proc.stderr
    txid = proc.stdout.strip()
    (root / "notes.txt").write_text(OLD["notes.txt"])
    (root / f".notes.txt.{txid}.pwtmp").write_text(NEW["notes.txt"][:5])
    assert (root / "calc.py").read_text() == NEW["calc.py"]


def assert_all_old(root: Path) -> None:
    for name, text in OLD.items():
        assert (root / name).read_text() == text, name
    assert not list(root.glob("*.pwtmp"))
    assert not any((root / ".patchwright" / "journal").iterdir())


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def no_marker(out: str) -> bool:
    """True when the output shows nothing of the half-written files."""
    return "half_written_marker" not in out


CASES: dict[str, tuple[list[str], Callable[[Result], bool]]] = {
    "exec": (["exec", "--json", "--", "cat calc.py notes.txt"],
             lambda r: no_marker(json.loads(r.stdout)["stdout"])),
    "index": (["index", "--json"], lambda r: json.loads(r.stdout)["files"] >= 2),
    "map": (["map", "--json"], lambda r: no_marker(r.stdout)),
    "search": (["search", "half_written_marker", "--mode", "exact", "--json"],
               lambda r: json.loads(r.stdout)["hits"] == []),
    "symbols": (["symbols", "--json"], lambda r: no_marker(r.stdout) and "add" in r.stdout),
    "locate": (["locate", "half_written_marker", "--json"], lambda r: no_marker(r.stdout)),
    "log": (["log", "--json"], lambda r: "no record of any run" in r.stderr),
    "undo --list": (["undo", "--list", "--json"],
                    lambda r: json.loads(r.stdout)["changes"] == []),
    "undo": (["undo", "--json"], lambda r: "nothing to undo" in json.loads(r.stdout)["error"]),
    "check": (["check", "--json", "--test-cmd", "true"],
              lambda r: json.loads(r.stdout)["touched"] == []),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_every_command_recovers_before_it_reads_the_repository(repo: Path, name: str) -> None:
    argv, judge = CASES[name]
    half_write(repo)
    head, *rest = argv
    result = invoke(head, "--repo", str(repo), *rest)
    assert_all_old(repo)
    assert "patchwright: recovered: rolled back interrupted transaction" in result.stderr
    assert "calc.py" in result.stderr
    lines = result.stdout.strip().splitlines()
    payload = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
    if name != "log":  # there is no run to log: an error on stderr
        assert payload.get("recovered") and "calc.py" in payload["recovered"][0], result.stdout
    assert judge(result), result.output


def test_with_nothing_pending_a_command_writes_and_says_nothing(repo: Path) -> None:
    result = invoke("undo", "--list", "--json", "--repo", str(repo))
    assert result.exit_code == 0 and json.loads(result.stdout) == {"changes": []}
    assert "recovered" not in result.stderr
    assert not (repo / ".patchwright").exists(), "a stat of the journal folder, nothing more"


def test_a_command_in_a_subfolder_recovers_the_repository_around_it(repo: Path) -> None:
    (repo / "sub").mkdir()
    half_write(repo)
    result = invoke("exec", "--repo", str(repo / "sub"), "--", "true")
    assert result.exit_code == 0 and "recovered: rolled back" in result.stderr
    assert_all_old(repo)


def test_a_journal_that_cannot_be_recovered_stops_the_command(repo: Path) -> None:
    half_write(repo)
    journal = repo / ".patchwright" / "journal"
    (entry,) = (p for p in journal.iterdir() if not p.name.startswith("."))
    pack = entry / "old.pack"
    pack.write_bytes(b"X" + pack.read_bytes()[1:])  # the backup no longer matches its hash
    result = invoke("exec", "--repo", str(repo), "--", "touch ran")
    assert result.exit_code == 1 and "could not be recovered" in result.stderr
    assert "damaged" in result.stderr and str(journal) in result.stderr
    assert not (repo / "ran").exists(), "the command did not run on half-written files"
    assert entry.exists(), "the journal is kept for the user to inspect"
