"""Red-team finding A, end to end: a repository whose ``.git`` a compromised command wrote —
``core.fsmonitor``, hooks, a filter driver with ``.gitattributes``, an ``[include]`` of a
config file full of programs — cannot make ``patchwright check``, ``apply`` (and
``--dry-run``), ``undo`` or ``run`` execute anything. Each command runs as a real process;
every planted program would delete a decoy folder outside the repository and sign in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BUGGY = "def add(a: int, b: int) -> int:\n    return a - b\n"
FIXED = "def add(a: int, b: int) -> int:\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add() -> None:\n    assert add(2, 3) == 5\n"
PYPROJECT = (
    '[project]\nname = "calc"\nversion = "0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n'
)
FIX_REPLY = f"calc.py\n```python\n<<<<<<< SEARCH\n{BUGGY}=======\n{FIXED}>>>>>>> REPLACE\n```\n"
HOOKS = (
    "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change",
    "reference-transaction", "post-checkout", "pre-auto-gc",
)  # fmt: skip


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip


class Trap:
    def __init__(self, base: Path) -> None:
        self.decoy, self.ran = base / "decoy", base / "ran"
        self.decoy.mkdir()
        (self.decoy / "precious.txt").write_text("keep me\n")
        self.ran.mkdir()

    def command(self, name: str) -> str:
        return f"rm -rf '{self.decoy}'; touch '{self.ran}/{name}'"

    def fired(self) -> list[str]:
        return sorted(p.name for p in self.ran.iterdir())

    def untouched(self) -> bool:
        return not self.fired() and (self.decoy / "precious.txt").is_file()


def plant(repo: Path, trap: Trap) -> None:
    """Write straight into ``.git`` what a command run before the sandbox fix could."""
    git(repo, "config", "core.fsmonitor", trap.command("fsmonitor") + "; false")
    for name in HOOKS:
        hook = repo / ".git" / "hooks" / name
        hook.write_text(f"#!/bin/sh\n{trap.command(name)}\nexit 0\n")
        hook.chmod(0o755)
    included = repo.parent / "innocent.cfg"
    for key, value in {
        "filter.evil.clean": trap.command("clean") + "; cat",
        "filter.evil.smudge": trap.command("smudge") + "; cat",
        "filter.evil.process": trap.command("process"),
        "diff.evil.textconv": trap.command("textconv") + "; cat",
        "diff.external": trap.command("diff-external"),
        "core.pager": trap.command("pager"),
        "core.editor": trap.command("editor"),
        "core.sshCommand": trap.command("ssh"),
        "credential.helper": "!" + trap.command("credential"),
        "alias.status": "!" + trap.command("alias"),
    }.items():
        git(repo, "config", "--file", str(included), key, value)
    git(repo, "config", "include.path", str(included))


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "PATCHWRIGHT_MODEL": "scripted:/dev/null"}


@pytest.fixture
def trap(tmp_path: Path) -> Trap:
    return Trap(tmp_path)


@pytest.fixture
def repo(tmp_path: Path, trap: Trap) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(BUGGY)
    (root / "tests" / "test_calc.py").write_text(TEST)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / ".gitattributes").write_text("*.py filter=evil diff=evil\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    plant(root, trap)
    (root / "README.md").write_text("untracked, so status looks at it\n")
    return root


def patchwright(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "patchwright", *args], cwd=repo, env=env, capture_output=True,
        text=True, stdin=subprocess.DEVNULL, timeout=240,
    )  # fmt: skip


def test_the_plant_is_live_for_plain_git(repo: Path, trap: Trap) -> None:
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, timeout=60)
    assert not trap.untouched() and "fsmonitor" in trap.fired()


def test_apply_dry_run_runs_nothing_planted(
    repo: Path, trap: Trap, env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "reply.md").write_text(FIX_REPLY)
    proc = patchwright(repo, env, "apply", "--dry-run", str(tmp_path / "reply.md"))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "calc.py").read_text() == BUGGY
    assert trap.untouched(), trap.fired()


def test_apply_then_undo_run_nothing_planted(
    repo: Path, trap: Trap, env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "reply.md").write_text(FIX_REPLY)
    proc = patchwright(repo, env, "apply", str(tmp_path / "reply.md"))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "calc.py").read_text() == FIXED
    proc = patchwright(repo, env, "undo")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "calc.py").read_text() == BUGGY
    assert trap.untouched(), trap.fired()


def test_check_runs_nothing_planted(repo: Path, trap: Trap, env: dict[str, str]) -> None:
    (repo / "calc.py").write_text(FIXED)
    proc = patchwright(repo, env, "check", "--json", "--test-cmd", "python -m pytest -q")
    payload = json.loads(proc.stdout)
    assert payload["touched"] == ["README.md", "calc.py"], proc.stderr
    assert trap.untouched(), trap.fired()


def test_run_with_a_scripted_model_commits_and_runs_nothing_planted(
    repo: Path, trap: Trap, env: dict[str, str], tmp_path: Path
) -> None:
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        json.dumps({"content": FIX_REPLY}) + "\n" + json.dumps({"content": "fix(calc): add"}) + "\n"
    )
    proc = patchwright(
        repo, env, "run", "--task", "tests/test_calc.py fails: add subtracts. Fix it.",
        "--model", f"scripted:{replies}", "--yes", "--json", "--max-iter", "1",
    )  # fmt: skip
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert proc.returncode == 0 and result["outcome"] == "solved", proc.stdout + proc.stderr
    assert git(repo, "log", "-1", "--format=%s") == "fix(calc): add\n"
    assert git(repo, "show", "HEAD:calc.py") == FIXED
    assert trap.untouched(), trap.fired()
