"""A fresh start goes on from the closest change: once a rejected change left fewer of the
task's tests failing than failed before any change, a later fresh start shows its files as
they now read and what still fails with them, instead of the stubs and the last failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent.test_solve import reply, settings_for, trajectory

from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve

BOTH = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
OPS = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n"
TESTS = (
    "from calc.ops import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)
PYPROJECT = (
    '[project]\nname = "calc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n'
)
TASK = "add() and mul() in calc/ops.py return wrong results; make tests/test_ops.py pass."


def whole(text: str) -> dict[str, Any]:
    return reply(f"calc/ops.py\n```python\n{text}```\n")


def test_a_fresh_start_goes_on_from_the_change_that_left_fewest_tests_failing(
    tmp_path: Path, shop: Any
) -> None:
    """The first change fixes add (test_mul still fails); the repair makes both fail again and
    its next reply repeats it: the fresh start shows the first change's file and test_mul's
    failure — not the stubs, not the worse change — and the reply fixing mul from there is kept."""
    repo = shop.make_repo(tmp_path / "calc", {"pyproject.toml": PYPROJECT, "calc/__init__.py": "",
                                              "calc/ops.py": OPS, "tests/test_ops.py": TESTS})  # fmt: skip
    add_fixed = OPS.replace("a - b", "a + b", 1)
    worse = OPS.replace("a - b", "b - a", 1)
    replies = [whole(add_fixed), whole(worse), whole(worse), whole(BOTH), reply("fix: d")]
    settings = settings_for(tmp_path, replies)
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    result = solve(Session(settings, repo), request)

    assert (result.outcome, result.iterations, result.calls) == ("solved", 3, 5)
    assert (repo / "calc" / "ops.py").read_text() == BOTH
    messages = trajectory(repo, result.run_id)
    first, *_, fresh = (i for i, m in enumerate(messages) if m["role"] == "system")
    asked = messages[fresh + 1]["content"]
    assert asked.startswith(messages[first + 1]["content"])  # the first request, restated
    shown = asked.split("An earlier answer came closest", 1)[1]
    assert "return a + b\n\n\ndef mul(a, b):\n    return a + b" in shown  # add fixed, mul not
    assert "b - a" not in asked  # the worse change is not shown
    assert "test_mul" in shown and "test_add" not in shown  # what still fails with it
    record = (repo / ".patchwright" / "runs" / result.run_id / "trajectory.json").read_text()
    assert "the closest change (1 test(s) still failing)" in record


def test_with_no_change_that_made_progress_a_fresh_start_goes_on_from_the_task_as_it_was(
    tmp_path: Path, shop: Any
) -> None:
    """A change that leaves as many tests failing as before is no place to go on from."""
    repo = shop.make_repo(tmp_path / "calc", {"pyproject.toml": PYPROJECT, "calc/__init__.py": "",
                                              "calc/ops.py": OPS, "tests/test_ops.py": TESTS})  # fmt: skip
    worse = OPS.replace("a - b", "b - a", 1)
    replies = [whole(worse), whole(worse), whole(BOTH), reply("fix: d")]
    settings = settings_for(tmp_path, replies)
    request = build_request(TASK, settings, Overrides(max_iter=4, yes=True, edit_format="whole"))
    result = solve(Session(settings, repo), request)

    assert (result.outcome, result.iterations) == ("solved", 2)
    messages = trajectory(repo, result.run_id)
    *_, fresh = (i for i, m in enumerate(messages) if m["role"] == "system")
    asked = messages[fresh + 1]["content"]
    assert "An earlier answer to this was tried and failed:" in asked
    assert "came closest" not in asked and "b - a" not in asked
