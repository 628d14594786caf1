"""The run's view of the repository: the index is used when the user has built one."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.llm import make_model
from patchwright.modes.setup import Workspace


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "billing.py").write_text(
        "def compute_invoice_total(lines):\n    return sum(l.amount for l in lines)\n"
    )
    (repo / "pkg" / "users.py").write_text("def create_user(name):\n    return {'name': name}\n")
    (repo / "pkg" / "util.py").write_text("def slug(text):\n    return text.lower()\n")
    return repo


def _workspace(repo: Path, tmp_path: Path) -> Workspace:
    replies = tmp_path / "replies.jsonl"
    replies.write_text('{"content": "x"}\n')
    return Workspace(repo, make_model(f"scripted:{replies}"), None, None)


def test_without_an_index_the_run_ranks_nothing_by_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    ws = _workspace(repo, tmp_path)
    assert ws.index_ranked("invoice total is wrong") == []
    assert ws.repo_map("invoice total is wrong") == ""


def test_a_built_index_ranks_the_relevant_file_first_and_gives_a_map(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert CliRunner().invoke(app, ["index", "--repo", str(repo)]).exit_code == 0
    ws = _workspace(repo, tmp_path)
    assert ws.index_ranked("compute_invoice_total returns the wrong invoice total")[0] == (
        "pkg/billing.py"
    )
    assert "compute_invoice_total" in ws.repo_map("compute_invoice_total is wrong")
