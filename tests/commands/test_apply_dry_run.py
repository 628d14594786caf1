"""``patchwright apply --dry-run`` equals the real run: the same path checks, the same
outcome and exit code — and it writes nothing; both recover an interrupted transaction
first and say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("X = 1\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".patchwright").mkdir()
    os.symlink(".git", root / "g")
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (``.git`` included, its index aside), by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.name != "index":
            files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def apply(repo: Path, reply: str, *args: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(app, ["apply", "--repo", str(repo), "--json", *args, "-"],
                                input=reply)  # fmt: skip
    return result.exit_code, json.loads(result.stdout)


# (path as the model writes it, SEARCH, exit code both runs must give)
TRICKY = [
    (".git/config", "[core]\n", 1),
    (".git/hooks/post-index-change", "", 1),
    ("g/hooks/post-index-change", "", 1),  # g is a symlink to .git
    ("g/config", "[core]\n", 1),
    (".patchwright/x.txt", "", 1),
    ("a.py/sub.py", "", 1),  # a path through a file
    ("../outside.py", "", 2),
    ("/tmp/patchwright-outside.py", "", 2),
    ("{repo}/inside.py", "", 0),  # absolute, but inside the repository
    ("new.py", "", 0),
    ("a.py", "X = 1\n", 0),
]


@pytest.mark.parametrize(("path", "search", "code"), TRICKY, ids=[t[0] for t in TRICKY])
def test_dry_run_and_real_run_agree_on_tricky_paths(
    repo: Path, path: str, search: str, code: int
) -> None:
    reply = sr(path.format(repo=repo), search, "Y = 2\n")
    before = snapshot(repo)
    dry_code, dry = apply(repo, reply, "--dry-run")
    assert snapshot(repo) == before, "a dry run wrote something"
    real_code, real = apply(repo, reply)
    assert (dry_code, dry) == (real_code, real)
    assert real_code == code, real
    blocks = real["blocks"]
    assert isinstance(blocks, list)
    if code:
        assert snapshot(repo) == before and not Path("/tmp/patchwright-outside.py").exists()
        assert blocks[0]["status"] == "failed" and blocks[0]["message"]
    else:
        assert real["ok"] is True and snapshot(repo) != before


def test_a_symlink_into_git_is_refused_by_a_real_dry_run_process(
    repo: Path, tmp_path: Path
) -> None:
    reply = tmp_path / "reply.md"
    reply.write_text(sr("g/hooks/pre-commit", "", "touch /tmp/pwned\n"))
    for args in (["--dry-run"], []):
        proc = subprocess.run(
            [sys.executable, "-m", "patchwright", "apply", *args, str(reply)],
            cwd=repo, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert ".git/ and .patchwright/ are not editable" in proc.stderr
        assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def _die_mid_transaction(repo: Path) -> None:
    """A process that writes a.py inside a transaction and dies before committing."""
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from patchwright.workspace.transaction import Transaction
        tx = Transaction(Path({str(repo)!r}))
        tx.stage({{"a.py": b"HALF = 1\\n"}})
        tx.write()
        os._exit(9)
        """
    )
    subprocess.run([sys.executable, "-c", script], check=False, timeout=120)
    assert (repo / "a.py").read_text() == "HALF = 1\n"


@pytest.mark.parametrize("args", [["--dry-run"], []], ids=["dry-run", "real"])
def test_both_runs_recover_a_dead_transaction_first_and_say_so(
    repo: Path, tmp_path: Path, args: list[str]
) -> None:
    _die_mid_transaction(repo)
    reply = tmp_path / "reply.md"
    reply.write_text(sr("a.py", "X = 1\n", "X = 2\n"))  # matches only the recovered file
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "apply", "--json", *args, str(reply)],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert len(data["recovered"]) == 1 and "rolled back" in data["recovered"][0]
    assert "recovered" in proc.stderr
    assert (repo / "a.py").read_text() == ("X = 1\n" if args else "X = 2\n")
