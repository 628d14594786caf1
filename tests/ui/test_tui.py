"""The TUI driven headless with Textual's pilot: a task's verified diff waits in the preview;
the apply key keeps it, the reject key leaves every file byte-identical."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from textual.widgets import Input

from patchwright.modes.chat.state import ChatOptions, open_chat
from patchwright.ui.tui.app import ChatApp
from patchwright.ui.tui.widgets import DiffPreview, SidePanel

CALC = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
TASK = "tests/test_calc.py fails: add subtracts. Fix add in calc.py."
FIX = "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          cwd=repo, capture_output=True, text=True, check=True).stdout  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "calc"
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text(CALC)
    (root / "tests" / "test_calc.py").write_text(TEST)
    (root / "conftest.py").write_text("")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


def hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()
            and not {".git", ".patchwright", "__pycache__", ".pytest_cache"} & set(p.parts)}  # fmt: skip


def app_for(repo: Path, tmp_path: Path, replies: list[str]) -> ChatApp:
    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps({"content": r}) + "\n" for r in replies))
    return ChatApp(open_chat(ChatOptions(repo=repo, model=f"scripted:{script}")))


async def until(condition: object, seconds: float = 120.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():  # type: ignore[operator]
        assert loop.time() < deadline, "timed out waiting"
        await asyncio.sleep(0.1)


async def submit_task(app: ChatApp, pilot: object) -> DiffPreview:
    field = app.query_one("#input", Input)
    field.value = TASK
    await pilot.press("enter")  # type: ignore[attr-defined]
    preview = app.query_one("#diff", DiffPreview)
    await until(lambda: preview.display and preview.diff)
    assert "+    return a + b" in preview.diff
    return preview


def test_the_apply_key_keeps_the_previewed_change(repo: Path, tmp_path: Path) -> None:
    app = app_for(repo, tmp_path, [FIX, "fix(calc): add returns the sum"])

    async def scenario() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await submit_task(app, pilot)
            await pilot.press("a")
            await until(lambda: not app.busy)
            assert "task solved" in str(app.query_one(SidePanel).render())

    asyncio.run(scenario())
    assert (repo / "calc.py").read_text() == CALC.replace("a - b", "a + b")
    assert git(repo, "log", "-1", "--format=%s").strip() == "fix(calc): add returns the sum"


def test_the_reject_key_leaves_the_files_byte_identical(repo: Path, tmp_path: Path) -> None:
    before, head = hashes(repo), git(repo, "rev-parse", "HEAD")
    app = app_for(repo, tmp_path, [FIX])

    async def scenario() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await submit_task(app, pilot)
            await pilot.press("r")
            await until(lambda: not app.busy)

    asyncio.run(scenario())
    assert hashes(repo) == before
    assert git(repo, "rev-parse", "HEAD") == head
