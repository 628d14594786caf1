"""A change whose failing test got further is repaired in its own conversation, as a change
that fixed most checks is (HumanEvalFix Rust-161: the one-function reply got past the first
check, was told "keep what made them pass", and was then dropped for a rewrite that never
came as close). Real pytest, a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

CODE = "def grade(n):\n    if n >= 90:\n        return 'B'\n    if n >= 80:\n        return 'C'\n    return 'F'\n"
TESTS = (
    "from grade import grade\n\n\ndef test_grade():\n    assert grade(95) == 'A'\n"
    "    assert grade(85) == 'B'\n    assert grade(10) == 'F'\n"
)


def _whole(text: str) -> str:
    return f"grade.py\n```python\n{text}```\n"


def _run(tmp_path: Path, script: Callable[[list[str]], Path], shop: Any, replies: list[str]) -> Any:
    repo = shop.make_repo(tmp_path / "grade", {"grade.py": CODE, "test_grade.py": TESTS})
    code, out = shop.run(repo, "grade() is wrong; fix it.", script(replies), "--test-cmd",
                         "pytest -q", "--max-iter", "3")  # fmt: skip
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    return code, out, repo, json.loads((run_dir / "trajectory.json").read_text())


def test_a_change_that_got_further_is_repaired_where_it_was_made(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    further = CODE.replace("'B'", "'A'")
    fixed = further.replace("'C'", "'B'")
    code, out, repo, trajectory = _run(
        tmp_path, script, shop, [_whole(further), _whole(fixed), "fix(grade): grades"]
    )
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / "grade.py").read_text() == fixed
    assert not [a for a in trajectory["actions"] if "refocus" in a]
    repair = [m["content"] for m in trajectory["messages"] if m["role"] == "user"][1]
    assert "Your change got further" in repair and further in trajectory["messages"][2]["content"]


def test_a_repair_that_gets_no_further_moves_on_to_the_function(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    further = CODE.replace("'B'", "'A'")
    as_far = further.replace("'F'", "'F' + ''")
    function = further.replace("'C'", "'B'")
    code, out, _, trajectory = _run(tmp_path, script, shop, [
        _whole(further), _whole(as_far), f"```python\n{function}```\n", "fix(grade): grades",
    ])  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    actions = trajectory["actions"]
    assert [(a["iteration"], a["refocus"]) for a in actions if "refocus" in a] == [(3, "grade")]
