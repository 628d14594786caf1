"""The first prompt and the repair say where the code writes the string a failed test got
(HumanEvalFix Go-119's `"yes"` for `"Yes"`, here in Python with real pytest)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

CODE = "def answer(ok):\n    if ok:\n        return 'yes'\n    return 'No'\n"
TESTS = "from answer import answer\n\n\ndef test_answer():\n    assert answer(True) == 'Yes'\n"
HINT = "the code writes `'yes'` here:\n- answer.py:3: `return 'yes'`"


def sr(search: str, replace: str) -> str:
    return f"answer.py\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"


def test_the_prompts_point_at_the_line_that_writes_the_wrong_value(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "answer", {"answer.py": CODE, "test_answer.py": TESTS})
    replies = script([
        sr("    if ok:", "    if ok is True:"),
        sr("    if ok:", "    if ok == True:"),
        "```python\n" + CODE.replace("'yes'", "'Yes'") + "```\n",
        "fix(answer): say Yes",
    ])  # fmt: skip
    code, out = shop.run(
        repo, "answer() is wrong; fix it.", replies, "--test-cmd", "pytest -q", "--max-iter", "3"
    )
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    first, repair, refocus = [m["content"] for m in messages if m["role"] == "user"][:3]
    assert "Find the wrong line" in refocus
    for prompt in (first, repair, refocus):
        assert HINT in prompt


HELPED = (
    "def answer(ok):\n    return word(ok).strip()\n\n\ndef word(ok):\n" + CODE.split("\n", 1)[1]
)


def test_the_refocus_asks_for_the_helper_that_writes_the_wrong_value(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    repo = shop.make_repo(tmp_path / "answer", {"answer.py": HELPED, "test_answer.py": TESTS})
    fixed = "def word(ok):\n    if ok:\n        return 'Yes'\n    return 'No'\n"
    replies = script([
        sr("    if ok:", "    if ok is True:"),
        sr("    if ok:", "    if ok == True:"),
        f"The helper returns 'yes'.\n```python\n{fixed}```\n",
        "fix(answer): say Yes",
    ])  # fmt: skip
    code, out = shop.run(
        repo, "answer() is wrong; fix it.", replies, "--test-cmd", "pytest -q", "--max-iter", "3"
    )
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / "answer.py").read_text() == HELPED.replace("'yes'", "'Yes'")
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    refocus = [m["content"] for m in messages if m["role"] == "user"][2]
    assert "The bug is in the function `word` of answer.py, which `answer` calls." in refocus
    assert "```python\n" + fixed.replace("'Yes'", "'yes'") + "```" in refocus
