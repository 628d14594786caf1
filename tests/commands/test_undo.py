"""``patchwright undo`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.workspace.transaction import Transaction


def change(root: Path, files: dict[str, bytes | None], label: str) -> None:
    with Transaction(root) as tx:
        tx.stage(files)
        tx.write()
        tx.commit(label)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["undo", *args])
    return result.exit_code, result.output


def test_undo_restores_and_reports_json(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 0\n")
    change(tmp_path, {"a.py": b"a = 1\n"}, "one")
    change(tmp_path, {"a.py": b"a = 2\n", "b.py": b"b\n"}, "two")
    code, out = run("2", "--repo", str(tmp_path), "--json")
    assert code == 0, out
    payload = json.loads(out)
    assert payload["ok"] is True and payload["files"] == ["a.py", "b.py"]
    assert [u["label"] for u in payload["undone"]] == ["two", "one"]
    assert (tmp_path / "a.py").read_text() == "a = 0\n"
    assert not (tmp_path / "b.py").exists()


def test_undo_refuses_user_changes_then_force_overwrites(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a = 0\n")
    change(tmp_path, {"a.py": b"a = 1\n"}, "one")
    (tmp_path / "a.py").write_text("user edit\n")
    code, out = run("--repo", str(tmp_path), "--json")
    assert code == 1
    payload = json.loads(out)
    assert payload == {"ok": False, "error": payload["error"], "conflicts": ["a.py"]}
    assert (tmp_path / "a.py").read_text() == "user edit\n"
    code, out = run("--repo", str(tmp_path), "--force")
    assert code == 0 and "restored: a.py" in out
    assert (tmp_path / "a.py").read_text() == "a = 0\n"


def test_nothing_to_undo_and_usage_errors(tmp_path: Path) -> None:
    code, out = run("--repo", str(tmp_path))
    assert code == 1 and "nothing to undo" in out
    code, _ = run("0", "--repo", str(tmp_path))
    assert code == 2
    code, _ = run("--repo", str(tmp_path / "missing"))
    assert code == 2


def test_list_shows_changes_newest_first(tmp_path: Path) -> None:
    change(tmp_path, {"x.txt": b"1"}, "first")
    change(tmp_path, {"y.txt": b"2"}, "second")
    code, out = run("--list", "--json", "--repo", str(tmp_path))
    assert code == 0
    assert [c["label"] for c in json.loads(out)["changes"]] == ["second", "first"]


def test_undo_from_a_subfolder_finds_the_repository_state(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    change(tmp_path, {"pkg/m.py": b"x = 1\n"}, "add m")
    code, out = run("--repo", str(tmp_path / "pkg"), "--json")
    assert code == 0, out
    assert json.loads(out)["files"] == ["pkg/m.py"]
    assert not (tmp_path / "pkg/m.py").exists()
