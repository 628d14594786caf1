"""A small SWE-bench-shaped instance built in the test: a real git repository with a planted
bug, a hidden test patch, FAIL_TO_PASS / PASS_TO_PASS, a mirror directory holding its bare
clone, and scripted model replies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from patchwright.config import Settings
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.setup import Where

OPS = '''"""Arithmetic helpers."""


def add(a, b):
    return a + b


def add_all(xs):
    total = 0
    for x in xs:
        total = add(total, x)
    return total


def mean(xs):
    total = add_all(xs)
    if any(isinstance(x, float) for x in xs):
        return total // len(xs)
    return total / len(xs)


def median(xs):
    ordered = sorted(xs)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return mean([ordered[middle - 1], ordered[middle]])
'''

TESTS = """from calc.ops import add, mean, median


def test_add():
    assert add(2, 3) == 5


def test_mean_of_ints():
    assert mean([2, 4]) == 3


def test_median():
    assert median([3, 1, 2]) == 2
"""

NEW_TEST = """

def test_mean_of_floats():
    assert mean([1.0, 2.0]) == 1.5
"""

FIX = ("        return total // len(xs)", "        return total / len(xs)")
F2P = ["tests/test_ops.py::test_mean_of_floats"]
P2P = ["tests/test_ops.py::test_add", "tests/test_ops.py::test_mean_of_ints",
       "tests/test_ops.py::test_median"]  # fmt: skip


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo, input=stdin, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return proc.stdout


def _diff(repo: Path, path: str, new_text: str) -> str:
    """The unified diff that turns ``path`` into ``new_text`` (made by git, then undone)."""
    original = (repo / path).read_text()
    (repo / path).write_text(new_text)
    diff = git(repo, "diff", "--", path)
    (repo / path).write_text(original)
    return diff


def reply(old: str, new: str, path: str = "calc/ops.py") -> dict[str, str]:
    """A scripted model reply: one SEARCH/REPLACE block."""
    block = f"{path}\n```python\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"
    return {"content": "Fix:\n\n" + block}


def eval_script(test_files: str) -> str:
    return (
        "#!/bin/bash\npython -m pip install -e .\n: '>>>>> Start Test Output'\n"
        f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -rA {test_files}\n: '>>>>> End Test Output'\n"
    )


@pytest.fixture
def calc_world(tmp_path: Path) -> dict[str, Any]:
    """The instance, its mirror directory and an instances file."""
    repo = tmp_path / "src" / "calc"
    (repo / "calc").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "ops.py").write_text(OPS)
    (repo / "calc" / "report.py").write_text("def title(name):\n    return name.title()\n")
    (repo / "tests" / "test_ops.py").write_text(TESTS)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "calc")
    base = git(repo, "rev-parse", "HEAD").strip()
    test_patch = _diff(repo, "tests/test_ops.py", TESTS + NEW_TEST)
    gold_patch = _diff(repo, "calc/ops.py", OPS.replace(*FIX))
    mirrors = tmp_path / "mirrors"
    mirrors.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(mirrors / "example__calc.git"))
    row = {
        "instance_id": "example__calc-1",
        "repo": "example/calc",
        "base_commit": base,
        "problem_statement": "mean() of floats is wrong: mean([1.0, 2.0]) returns 1.0, not 1.5.",
        "test_patch": test_patch,
        "patch": gold_patch,
        "version": "1.0",
        "FAIL_TO_PASS": json.dumps(F2P),
        "PASS_TO_PASS": json.dumps(P2P),
        "environment_setup_commit": base,
        "eval_script": eval_script("tests/test_ops.py"),
    }
    instances = tmp_path / "instances.jsonl"
    instances.write_text(json.dumps(row) + "\n")
    return {"row": row, "instance": Instance.from_row(row), "mirrors": mirrors,
            "instances": instances, "tmp": tmp_path}  # fmt: skip


def where_for(world: dict[str, Any], **kw: Any) -> Where:
    return Where(workdir=world["tmp"] / "work", repos_dir=world["mirrors"], env="host",
                 python=Path(sys.executable), **kw)  # fmt: skip


def script(tmp: Path, replies: list[dict[str, str]], name: str = "replies.jsonl") -> str:
    path = tmp / name
    path.write_text("".join(json.dumps(r) + "\n" for r in replies))
    return f"scripted:{path}"


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def calc_batch(calc_world: dict[str, Any]) -> dict[str, Any]:
    """Three instances over the same repository (ids example__calc-1..3)."""
    rows = [{**calc_world["row"], "instance_id": f"example__calc-{n}"} for n in (1, 2, 3)]
    calc_world["instances"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return calc_world
