"""``patchwright check``: the working tree's gates against the last commit as baseline."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from patchwright.cli import app

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add, sub\n\n\n"
    "def test_add():\n    assert add(1, 1) == 2\n\n\n"
    "def test_sub():\n    assert sub(3, 1) == 2\n"
)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def make_repo(root: Path) -> Path:
    root.mkdir()
    (root / "calc.py").write_text("import os\n\n" + CALC)  # an old lint error, an old failing test
    (root / "ruff.toml").write_text('[lint]\nselect = ["F"]\n')  # the project's own rules
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    git(root, "init", "-q")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["check", *args])
    return result.exit_code, result.output


def test_a_new_failure_fails_the_check_old_ones_do_not(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "calc.py").write_text("import os\nimport sys\n\n" + CALC.replace("a + b", "a * b", 1))
    code, out = run("--repo", str(root), "--json")
    assert code == 1, out
    payload = json.loads(out)
    gates = {g["name"]: g for g in payload["gates"]}
    assert payload["ok"] is False and payload["touched"] == ["calc.py"]
    assert payload["baseline_failing_tests"] == ["tests/test_calc.py::test_sub"]
    assert [p["message"] for p in gates["tests"]["new_problems"]] == [
        "tests/test_calc.py::test_add"
    ]
    assert [p["code"] for p in gates["lint"]["new_problems"]] == ["F401"]
    assert "sys" in gates["lint"]["new_problems"][0]["message"]
    assert gates["syntax"]["status"] == "passed"
    assert not (root / ".git" / "refs" / "stash").exists()  # the working tree was not stashed
    assert "import sys" in (root / "calc.py").read_text()


def test_a_fix_passes_and_is_reported_in_the_table(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "calc.py").write_text(CALC)  # the unused import is gone
    code, out = run("--repo", str(root), "--test-cmd", "true")
    assert code == 0, out
    header = next(line for line in out.splitlines() if "gate" in line and "status" in line)
    assert [w for w in header.replace("┃", " ").split()] == [
        "gate", "status", "new", "fixed", "seconds", "notes"
    ]  # fmt: skip
    rows = {cells[0]: cells[1:3] for cells in _rows(out)}
    assert rows == {"syntax": ["passed", "0"], "lint": ["passed", "0"],
                    "types": ["skipped", "0"], "tests": ["passed", "0"]}  # fmt: skip
    assert "fixed lint: calc.py:1: [F401] `os` imported but unused" in out
    # the gates' scratch files are kept out of the user's `git status`
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert status.strip() == "M calc.py"


def _rows(table: str) -> list[list[str]]:
    """The first cells of each table row that starts a gate (not a wrapped line)."""
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0]:
            rows.append(cells)
    return rows


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    code, _ = run("--repo", str(tmp_path / "missing"))
    assert code == 2
    (tmp_path / "plain").mkdir()
    code, out = run("--repo", str(tmp_path / "plain"))
    assert code == 2 and "not a git repository" in out


def test_a_gate_that_could_not_run_exits_3_never_ok(tmp_path: Path) -> None:
    """Each tool that cannot give a verdict: mypy crashing on its config, ruff rejecting its
    config, a test command that cannot start. None of them passes; the check exits 3."""
    root = make_repo(tmp_path / "repo")
    (root / "mypy.ini").write_text("[mypy]\nplugins = nonexistent_plugin\n")
    (root / "calc.py").write_text(CALC + '\n\ny: int = "oops"\n')
    code, out = run("--repo", str(root), "--json", "--test-cmd", "nonexistent-runner -q")
    assert code == 3, out
    payload = json.loads(out)
    gates = {g["name"]: g for g in payload["gates"]}
    assert payload["ok"] is False and payload["could_not_run"] == ["types", "tests"]
    assert gates["types"]["status"] == "could_not_run" and gates["types"]["ok"] is False
    assert "nonexistent_plugin" in gates["types"]["reason"]
    assert gates["tests"]["status"] == "could_not_run"
    assert "nonexistent-runner: command not found" in gates["tests"]["reason"]
    assert gates["lint"]["status"] == "passed"

    (root / "mypy.ini").unlink()
    (root / "calc.py").write_text(CALC)
    (root / "ruff.toml").write_text('[lint]\nselect = "F"\n')  # a config ruff rejects
    code, out = run("--repo", str(root), "--test-cmd", "true")
    assert code == 3, out
    rows = {cells[0]: cells[1] for cells in _rows(out)}
    assert rows["lint"] == "could not run" and rows["tests"] == "passed"
    assert "could not run lint: could not lint: ruff exited 2" in " ".join(out.split())


def test_a_failed_gate_outranks_one_that_could_not_run(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "calc.py").write_text("import os\nimport sys\n\n" + CALC)  # a new F401
    code, out = run("--repo", str(root), "--json", "--test-cmd", "nonexistent-runner")
    payload = json.loads(out)
    assert code == 1 and payload["could_not_run"] == ["tests"], out
