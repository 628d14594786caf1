"""The task's view of the repository: the Session's index, built or refreshed on first use,
ranking files and giving the outline for a task."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from patchwright.agent.context import index_ranked, repo_outline
from patchwright.agent.session import Session
from patchwright.cli import app
from patchwright.config import Settings
from patchwright.events import EventBus


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "r"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "billing.py").write_text(
        "def compute_invoice_total(lines):\n    return sum(l.amount for l in lines)\n"
    )
    (repo / "pkg" / "users.py").write_text("def create_user(name):\n    return {'name': name}\n")
    (repo / "pkg" / "util.py").write_text("def slug(text):\n    return text.lower()\n")
    return repo


def _session(repo: Path, tmp_path: Path, bus: EventBus | None = None) -> Session:
    replies = tmp_path / "replies.jsonl"
    replies.write_text('{"content": "x"}\n')
    settings = Settings.model_validate({"model": {"name": f"scripted:{replies}"}})
    return Session(settings, repo, bus=bus)


def test_the_index_is_built_on_first_use_with_progress(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    bus, kinds = EventBus(), list[str]()
    bus.subscribe(lambda e: kinds.append(e.kind))
    session = _session(repo, tmp_path, bus)
    task = "compute_invoice_total returns the wrong invoice total"
    assert index_ranked(session.index, task)[0] == "pkg/billing.py"
    assert kinds[0] == "index.start" and "index.progress" in kinds and "index.done" in kinds
    assert (repo / ".patchwright" / "cache" / "symbols.sqlite").is_file()


def test_an_index_refreshes_what_changed_and_gives_a_map(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert CliRunner().invoke(app, ["index", "--repo", str(repo)]).exit_code == 0
    (repo / "pkg" / "tax.py").write_text("def vat_rate(country):\n    return 0.2\n")
    session = _session(repo, tmp_path)
    assert index_ranked(session.index, "vat_rate is wrong for France")[0] == "pkg/tax.py"
    assert "compute_invoice_total" in repo_outline(session.index, "compute_invoice_total is wrong")
