"""The embedded model behind the REPL: two tasks in one session load the model once, so the
second task's first token comes sooner than a fresh ``patchwright run``'s (which starts the
process, imports and loads the model first). Prints the figures (run with ``-s``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # three model runs on 2 cores

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
FIXED = "return price * (1 - percent / 100)"
OUTCOME = re.compile(r"(solved|unverified|failed|error)(\x1b\[[0-9;]*m)* · ")  # rich styles it


def demo_repo(target: Path, *, fixed: bool = False) -> Path:
    shutil.copytree(DEMO, target)
    if fixed:
        pricing = target / "inventory" / "pricing.py"
        pricing.write_text(pricing.read_text().replace("return price * percent / 100", FIXED))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "initial"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                       cwd=target, check=True, capture_output=True)  # fmt: skip
    return target


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1",
            "XDG_DATA_HOME": str(home), "OMP_WAIT_POLICY": "PASSIVE"}  # fmt: skip


def test_two_tasks_in_one_chat_load_the_model_once(tmp_path: Path) -> None:
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
    chat_first, chat_second = (float(t["first_token_s"]) for t in tasks)

    fresh = demo_repo(tmp_path / "fresh", fixed=True)  # the state the second task started from
    started = time.monotonic()
    run = pexpect.spawn(PATCHWRIGHT, ["run", "--task", TASK2, "--model", MODEL, "--yes",
                                      "--max-iter", "1"], cwd=str(fresh), env=env(tmp_path),
                        encoding="utf-8", timeout=900, dimensions=(50, 200))  # fmt: skip
    run.expect(re.compile(r"· [1-9]\d* tokens"))
    fresh_first = time.monotonic() - started
    run.expect(pexpect.EOF)

    print(f"\nfirst token: chat task 1 {chat_first:.1f}s (loads the model), chat task 2 "
          f"{chat_second:.1f}s, fresh `patchwright run` of task 2 {fresh_first:.1f}s")  # fmt: skip
    assert chat_second < fresh_first
