"""``patchwright index/map/search/symbols/locate`` on a real repository."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

FILES = {
    "calc/ops.py": (
        "def add(a: int, b: int) -> int:\n    return a + b\n\n\n"
        "def divide(a: float, b: float) -> float:\n"
        "    return a / b  # ZeroDivisionError when b is zero\n"
    ),
    "calc/cli.py": (
        "from calc.ops import add, divide\n\n\n"
        "def main(argv: list[str]) -> float:\n"
        "    return divide(float(argv[0]), float(argv[1]))\n"
    ),
    "README.md": "# calc\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_index_json_reports_counts_and_is_incremental(repo: Path) -> None:
    code, out = run("index", "--repo", str(repo), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["files"], data["parsed"]) == (3, 3)
    code, out = run("index", "--repo", str(repo), "--json", "--ledger")
    assert json.loads(out)["parsed"] == 0
    assert json.loads((repo / "SYMBOLS.json").read_text())["definitions"]["divide"] == "calc/ops.py"
    code, out = run("index", "--repo", str(repo), "--rebuild")
    assert code == 0 and "4 parsed" in out  # SYMBOLS.json is a file of the repo now


def test_locate_json_is_exactly_files_and_symbols(repo: Path) -> None:
    code, out = run(
        "locate", "divide() raises ZeroDivisionError when b is zero", "--repo", str(repo),
        "--json", "-k", "2",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"files", "symbols"}
    assert data["files"][0]["path"] == "calc/ops.py"
    assert isinstance(data["files"][0]["score"], float)
    assert data["symbols"][0] == {
        "path": "calc/ops.py",
        "name": "divide",
        "line": 5,
        "score": data["symbols"][0]["score"],
    }
    assert len(data["files"]) <= 2


def test_search_modes_and_usage_errors(repo: Path) -> None:
    code, out = run("search", "return a / b", "--repo", str(repo), "--mode", "exact")
    assert code == 0 and out.startswith("calc/ops.py:6: return a / b")
    code, out = run("search", "opz", "--repo", str(repo), "--mode", "fuzzy", "--json")
    assert json.loads(out)["hits"][0]["path"] == "calc/ops.py"
    code, out = run("search", "x", "--repo", str(repo), "--mode", "telepathy")
    assert code == 2 and "unknown --mode" in out
    code, out = run("search", "(", "--repo", str(repo), "--mode", "regex")
    assert code == 2 and "invalid regular expression" in out


def test_symbols_and_map(repo: Path) -> None:
    code, out = run("symbols", "calc/ops.py", "--repo", str(repo), "--json")
    names = [d["qualname"] for d in json.loads(out)["definitions"]]
    assert names == ["calc.ops.add", "calc.ops.divide"]
    code, out = run("symbols", "nope.py", "--repo", str(repo))
    assert code == 2 and "not an indexed file" in out
    code, out = run("map", "--repo", str(repo), "--tokens", "200", "--focus", "divide")
    assert code == 0 and "def divide(a: float, b: float) -> float" in out


def test_missing_repo_is_a_usage_error(tmp_path: Path) -> None:
    code, out = run("map", "--repo", str(tmp_path / "absent"))
    assert code == 2 and "repository folder not found" in out
