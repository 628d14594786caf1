"""The repair prompt says when the failing test now stops at an earlier check than before the
change (a check the code passed, broken) — HumanEvalFix Rust-39, here in Python."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

CODE = "def square(x):\n    return x * 2\n"
TESTS = (
    "from calc import square\n\n\ndef test_square():\n    assert square(2) == 4\n"
    "    assert square(3) == 9\n"
)


def sr(search: str, replace: str) -> str:
    return (
        f"calc.py\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"
    )


def test_a_change_that_breaks_a_check_the_code_passed_is_told_so(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "calc", {"calc.py": CODE, "test_calc.py": TESTS})
    replies = script([sr("x * 2", "x * 3"), sr("x * 2", "x * x"), "fix(calc): square squares"])
    code, out = shop.run(repo, "square() is wrong; fix it.", replies, "--test-cmd", "pytest -q")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    repair = [m["content"] for m in messages if m["role"] == "user"][1]
    assert (
        "Your change broke `assert square(2) == 4` (test_calc.py:5): the code as it was passed "
        "that check (the test stopped at line 6 before the change)." in repair
    )
