"""Real git repositories in temp dirs and scripted model replies for end-to-end runs."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BUGGY = '''"""Prices and discounts."""


def apply_discount(price: float, percent: float) -> float:
    """Return the price after taking ``percent`` (0-100) off it."""
    return price * percent / 100
'''

FIXED = BUGGY.replace("return price * percent / 100", "return price * (1 - percent / 100)")

TEST = """from shop.pricing import apply_discount


def test_quarter_off() -> None:
    assert apply_discount(200.0, 25) == 150.0


def test_zero() -> None:
    assert apply_discount(80.0, 0) == 80.0
"""

PYPROJECT = """[project]
name = "shop"
version = "0.1.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
"""


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


@pytest.fixture
def shop_repo(tmp_path: Path) -> Path:
    """A git repo with a one-line bug in shop/pricing.py and a failing test."""
    repo = tmp_path / "shop"
    (repo / "shop").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pyproject.toml").write_text(PYPROJECT)
    (repo / "shop" / "__init__.py").write_text("")
    (repo / "shop" / "pricing.py").write_text(BUGGY)
    (repo / "tests" / "test_pricing.py").write_text(TEST)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


JS_RUNNERS = Path(__file__).resolve().parent / "fixtures" / "js-runners" / "node_modules"


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError as error:  # another filesystem, or no hard links there
        if error.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        shutil.copy2(src, dst)


def install_node_modules(repo: Path) -> Path:
    """Give ``repo`` a ``node_modules`` holding jest, vitest, mocha, typescript and eslint,
    from ``tests/fixtures/js-runners`` (``scripts/setup.sh`` runs ``npm ci`` there; the test
    is skipped with the reason when it has not). A real tree of hard links, as in a checkout:
    links pointing back at the fixture would leave the repository when the fixture sits
    where the sandbox hides (a clone under ``/tmp``), and the runners would not be found."""
    if not (JS_RUNNERS / ".bin" / "jest").exists():
        pytest.skip(
            "the JavaScript test runners are not installed: run scripts/setup.sh "
            "(npm ci in tests/fixtures/js-runners)"
        )
    target = repo / "node_modules"
    shutil.copytree(
        JS_RUNNERS, target, symlinks=True, copy_function=_link_or_copy, dirs_exist_ok=True
    )
    return target


def make_repo(root: Path, files: dict[str, str]) -> Path:
    """A git repository at ``root`` holding ``files`` (relative path -> text), committed."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def run_json(repo: Path, task: str, replies: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """``patchwright run --json`` in process with scripted replies (``--yes``, 2 iterations
    unless ``extra`` says otherwise): its exit code and its one JSON line."""
    from typer.testing import CliRunner

    from patchwright.cli import app

    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(repo), "--task", task, "--model", f"scripted:{replies}",
         "--yes", "--json", "--max-iter", "2", *extra],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


def fingerprint(repo: Path) -> dict[str, str]:
    """Hashes of every file outside .git and .patchwright (byte-identity checks)."""
    out: dict[str, str] = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if (
            path.is_file()
            and not rel.startswith((".git/", ".patchwright/"))
            and "__pycache__" not in rel
            and ".pytest_cache" not in rel
        ):
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


class Shop:
    """The shop repo's texts and helpers, handed to tests as a fixture."""

    BUGGY = BUGGY
    FIXED = FIXED
    git = staticmethod(git)
    fingerprint = staticmethod(fingerprint)
    make_repo = staticmethod(make_repo)
    run = staticmethod(run_json)


@pytest.fixture
def shop() -> type[Shop]:
    return Shop


@pytest.fixture
def script(tmp_path: Path) -> Callable[[list[str]], Path]:
    """Writes scripted model replies (one JSON object per line) and returns the file."""

    def write(replies: list[str]) -> Path:
        path = tmp_path / "replies.jsonl"
        path.write_text("".join(json.dumps({"content": r}) + "\n" for r in replies))
        return path

    return write


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under ``pytest -n`` (xdist, ``--dist loadgroup``) the tests that run the embedded model
    share one worker, one after another: llama.cpp's threads collapse when two generations
    compete for the two cores."""
    for item in items:
        if any(item.get_closest_marker(m) is not None for m in ("slow", "smoke")):
            item.add_marker(pytest.mark.xdist_group("embedded-model"))


@pytest.fixture(autouse=True)
def _inner_pytest_without_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repositories the tests build need no pytest plugin, and each of their test runs
    would otherwise load this environment's (hypothesis's alone: 0.3 s a run, over a
    thousand runs). The sandbox passes the variable on, as from a user's shell."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
