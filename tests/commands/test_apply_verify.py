"""``patchwright apply`` refuses a change that turns a parseable file unparseable (the
syntax gate's parsers), unless ``--no-verify``; a file that was already broken is not
refused for staying broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

GOOD = "def total(xs):\n    return sum(xs)\n"
BROKEN = "def total(xs:\n    return sum(xs)\n"


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "calc.py").write_text(GOOD)
    (root / "old.py").write_text(BROKEN)
    (root / "conf.json").write_text('{"a": 1}\n')
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def apply(repo: Path, reply: str, *args: str) -> subprocess.CompletedProcess[str]:
    result = CliRunner().invoke(app, ["apply", "--repo", str(repo), *args, "-"], input=reply)
    return subprocess.CompletedProcess([], result.exit_code, result.stdout, result.stderr)


def test_a_change_that_breaks_a_python_file_is_refused_with_the_parse_error(repo: Path) -> None:
    reply = repo.parent / "reply.md"
    reply.write_text(sr("calc.py", "def total(xs):\n", "def total(xs:\n"))
    proc = subprocess.run(
        [sys.executable, "-m", "patchwright", "apply", str(reply)],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "the change leaves calc.py unparseable (calc.py:1:" in proc.stderr
    assert "--no-verify" in proc.stderr
    assert (repo / "calc.py").read_text() == GOOD


def test_json_and_dry_run_refuse_it_the_same_way(repo: Path) -> None:
    reply = sr("calc.py", "def total(xs):\n", "def total(xs:\n")
    real, dry = apply(repo, reply, "--json"), apply(repo, reply, "--json", "--dry-run")
    assert (real.returncode, real.stdout) == (dry.returncode, dry.stdout)
    data = json.loads(real.stdout)
    assert real.returncode == 1 and data["ok"] is False and data["files_changed"] == []
    assert "unparseable" in data["blocks"][0]["message"]
    assert (repo / "calc.py").read_text() == GOOD


def test_no_verify_writes_it_anyway(repo: Path) -> None:
    proc = apply(repo, sr("calc.py", "def total(xs):\n", "def total(xs:\n"), "--no-verify")
    assert proc.returncode == 0, proc.stderr
    assert (repo / "calc.py").read_text() == BROKEN


def test_a_file_already_broken_is_not_refused_for_staying_broken(repo: Path) -> None:
    proc = apply(repo, sr("old.py", "    return sum(xs)\n", "    return sum(xs) or 0\n"))
    assert proc.returncode == 0, proc.stderr
    assert (repo / "old.py").read_text() == "def total(xs:\n    return sum(xs) or 0\n"


def test_a_new_file_must_parse_and_other_languages_are_checked_too(repo: Path) -> None:
    reply = sr("new.py", "", "def f(:\n") + sr("conf.json", '{"a": 1}\n', '{"a": 1,}\n')
    proc = apply(repo, reply, "--json")
    blocks = json.loads(proc.stdout)["blocks"]
    assert proc.returncode == 1
    assert [b["status"] for b in blocks] == ["failed", "failed"]
    assert all("unparseable" in b["message"] for b in blocks)
    assert not (repo / "new.py").exists() and (repo / "conf.json").read_text() == '{"a": 1}\n'


def test_a_change_that_keeps_the_file_parseable_is_written(repo: Path) -> None:
    proc = apply(repo, sr("calc.py", "    return sum(xs)\n", "    return sum(xs, 0)\n"))
    assert proc.returncode == 0, proc.stderr
    assert "return sum(xs, 0)" in (repo / "calc.py").read_text()
