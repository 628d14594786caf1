"""The embedded model behind the REPL: two tasks in one session, each ending with its outcome
the first one solved. That the session keeps one loaded model is
``tests/llm/test_local.py``'s (it counts the loads); the time each task waits for its first
token is printed (run with ``-s``) — a figure, not a pass mark: speed belongs in
``benchmarks/``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # two model runs on 2 cores

PATCHWRIGHT = str(Path(sys.executable).parent / "patchwright")
DEMO = Path(__file__).parents[3] / "examples" / "demo_repo"
MODEL = "local:qwen2.5-coder-1.5b"
TASK1 = (
    "tests/test_pricing.py fails: apply_discount in inventory/pricing.py returns the discount "
    "amount instead of the discounted price. Fix apply_discount."
)
TASK2 = (
    "Add a function discount_amount(price, percent) to inventory/pricing.py that returns how "
    "much apply_discount takes off the price."
)
OUTCOME = re.compile(r"(solved|unverified|failed|error)(\x1b\[[0-9;]*m)* · ")  # rich styles it


def demo_repo(target: Path) -> Path:
    shutil.copytree(DEMO, target)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                       cwd=target, check=True, capture_output=True)  # fmt: skip
    return target


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1",
            "XDG_DATA_HOME": str(home), "OMP_WAIT_POLICY": "PASSIVE"}  # fmt: skip


def test_two_tasks_in_one_chat_session_each_end_with_an_outcome(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "chat")
    child = pexpect.spawn(PATCHWRIGHT, ["--model", MODEL, "--yes", "--max-iter", "1"],
                          cwd=str(repo), env=env(tmp_path), encoding="utf-8", timeout=900,
                          dimensions=(50, 200))  # fmt: skip
    child.expect("›")
    for task in (TASK1, TASK2):
        child.send(task + "\r")
        child.expect(OUTCOME)
        child.expect("›")
    child.send("/quit\r")
    child.expect(pexpect.EOF)
    transcript = next((repo / ".patchwright" / "sessions").iterdir()) / "transcript.jsonl"
    tasks = [e for e in map(json.loads, transcript.open()) if e["kind"] == "task"]
    assert [t["outcome"] in ("solved", "unverified", "failed") for t in tasks] == [True, True]
    assert tasks[0]["outcome"] == "solved"  # its failing test passes now, proved by the gates
    print("\nfirst token: " + ", ".join(f"task {n} {float(t['first_token_s']):.1f}s"
                                        for n, t in enumerate(tasks, 1)))  # fmt: skip
