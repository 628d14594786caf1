"""Approval in a real terminal (a pty): apply, edit in $EDITOR (re-verified), skip."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


def _editor(tmp_path: Path, code: str) -> str:
    """An $EDITOR: a script that rewrites the files it is given with ``code``."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\n"
        "for name in sys.argv[1:]:\n"
        "    path = Path(name)\n"
        "    text = path.read_text()\n"
        f"{code}\n"
        "    path.write_text(text)\n"
    )
    return f"{sys.executable} {script}"


def run_in_terminal(repo: Path, replies: Path, answers: str, editor: str) -> tuple[int, str]:
    """Runs ``patchwright run`` with a pty as its terminal, typing ``answers``."""
    leader, follower = pty.openpty()
    env = {**os.environ, "EDITOR": editor, "VISUAL": "", "NO_COLOR": "1", "COLUMNS": "200"}
    command = ["run", "--repo", str(repo), "--task", TASK, "--model", f"scripted:{replies}"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "patchwright", *command],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    os.write(leader, answers.encode())
    code = proc.wait(timeout=120)
    reader.join(timeout=5)
    os.close(leader)
    return code, b"".join(chunks).decode(errors="replace")


def _events(repo: Path) -> list[dict[str, Any]]:
    (events,) = (repo / ".patchwright" / "runs").glob("*/events.jsonl")
    return [json.loads(line) for line in events.read_text().splitlines()]


def test_a_change_edited_in_the_editor_is_verified_again_and_committed(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, tmp_path: Path
) -> None:
    editor = _editor(tmp_path, '    text = text + "\\n\\nREVIEWED = True\\n"')
    code, screen = run_in_terminal(shop_repo, script([FIX, "fix: d"]), "e\na\n", editor)
    assert code == 0, screen
    committed = shop.git(shop_repo, "show", "HEAD:shop/pricing.py")
    assert "REVIEWED = True" in committed
    assert "(1 - percent / 100)" in committed
    edited = [e for e in _events(shop_repo) if e["kind"] == "approval.edited"]
    assert len(edited) == 1 and edited[0]["ok"] is True
    assert "re-running the gates" in screen


def test_an_edit_that_breaks_the_gates_cannot_be_applied(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, tmp_path: Path
) -> None:
    before = shop.fingerprint(shop_repo)
    editor = _editor(tmp_path, '    text = text.replace("(1 - percent / 100)", "(1 - percent /")')
    code, screen = run_in_terminal(shop_repo, script([FIX, "fix: d"]), "e\na\ns\n", editor)
    assert code == 1, screen
    assert "fails the gates" in screen
    assert "cannot be applied" in screen
    assert shop.fingerprint(shop_repo) == before  # skipped: restored byte for byte
    (edited,) = [e for e in _events(shop_repo) if e["kind"] == "approval.edited"]
    assert edited["ok"] is False
    assert "(1 - percent /" in edited["diff"]  # the user's edit is kept in the record


def test_apply_in_the_terminal_commits_the_shown_change(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, tmp_path: Path
) -> None:
    code, screen = run_in_terminal(shop_repo, script([FIX, "fix: d"]), "a\n", "false")
    assert code == 0, screen
    assert "Apply this change?" in screen
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
