"""mypy's head start: the standard library checked once, copied into each run's cache, never
written back, and never the cause of a wrong answer."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import Baseline, TypesGate
from patchwright.verify.mypy_seed import python_version, seed_cache
from patchwright.verify.tools import python_tool

MYPY = python_tool("mypy") or ["mypy"]


def fingerprint(tree: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(tree)).encode() + path.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("PATCHWRIGHT_MYPY_SEED", raising=False)
    return home


def seeds(cache_home: Path) -> list[Path]:
    return sorted((cache_home / "patchwright" / "mypy-seed").glob("*"))


def test_the_seed_is_made_once_and_copied_into_each_empty_cache(
    cache_home: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "run1", tmp_path / "run2"
    first.mkdir()
    second.mkdir()
    assert seed_cache(first, MYPY, sys.executable)
    (seed,) = seeds(cache_home)
    made = seed.stat().st_mtime_ns
    assert seed_cache(second, MYPY, sys.executable)
    assert seeds(cache_home) == [seed] and seed.stat().st_mtime_ns == made
    assert fingerprint(first) == fingerprint(second) == fingerprint(seed)
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert any((first / here).iterdir())  # the standard library, checked for this Python


def test_a_cache_in_use_a_planted_link_a_switch_or_an_unknown_python_get_no_seed(
    cache_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "kept").write_text("mine")
    assert not seed_cache(used, MYPY, sys.executable)
    assert [p.name for p in used.iterdir()] == ["kept"]

    elsewhere = tmp_path / "another-repo"
    elsewhere.mkdir()
    planted = tmp_path / "planted"
    planted.symlink_to(elsewhere)  # as a command in the sandbox could leave it
    assert not seed_cache(planted, MYPY, sys.executable)
    assert list(elsewhere.iterdir()) == []

    empty = tmp_path / "empty"
    empty.mkdir()
    assert not seed_cache(empty, MYPY, str(tmp_path / "no-venv" / "bin" / "python"))
    monkeypatch.setenv("PATCHWRIGHT_MYPY_SEED", "0")
    assert not seed_cache(empty, MYPY, sys.executable)
    assert list(empty.iterdir()) == [] and seeds(cache_home) == []


def test_a_cache_home_that_cannot_be_written_costs_the_head_start_not_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # the cache home is a file: nothing can be made under it
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    target = tmp_path / "run"
    target.mkdir()
    assert not seed_cache(target, MYPY, sys.executable)
    assert list(target.iterdir()) == []


def test_a_virtualenvs_python_version_is_read_from_its_config_not_by_running_it(
    tmp_path: Path,
) -> None:
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text("#!/bin/sh\ntouch ran\n")
    python.chmod(0o755)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.12.4.final.0\n")
    assert python_version(str(python)) == "3.12"
    assert not (tmp_path / "ran").exists()
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert python_version(sys.executable) == here


def test_gate_answers_are_mypys_own_and_the_seed_is_never_written_back(
    cache_home: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:
    strict = "[mypy]\nstrict = True\n"  # other settings than the seed's: mypy re-checks
    write({"mypy.ini": strict, "pkg/__init__.py": "", "pkg/m.py": "def f(x: int) -> int:\n"
           "    return x\n"})  # fmt: skip
    base = baseline()
    write({"pkg/m.py": "import json\n\n\ndef f(x):\n    return json.dumps(x)\n"})
    result = check(base, ["pkg/m.py"], gates=[TypesGate()])["types"]
    assert result.status == "failed", result.reason
    assert [p.code for p in result.new_problems] == ["no-untyped-def"]
    (seed,) = seeds(cache_home)
    before = fingerprint(seed)
    write({"pkg/m.py": "def f(x: int) -> str:\n    return x\n"})
    result = check(base, ["pkg/m.py"], gates=[TypesGate()])["types"]
    assert [p.code for p in result.new_problems] == ["return-value"]
    assert fingerprint(seed) == before
