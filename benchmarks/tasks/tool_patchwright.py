"""patchwright on a task: ``patchwright run --yes --json`` in the task's repository."""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from taskdefs import Task, run_bounded


def run_patchwright(
    task: Task, repo: Path, args: argparse.Namespace, model: str, keep: Path | None
) -> dict[str, Any]:
    """patchwright on ``task`` in ``repo``: its outcome, its own record, its wall time.
    ``model`` "gold" replies with the row's gold solution (the harness's ceiling)."""
    with tempfile.TemporaryDirectory(prefix="gold-script-") as side:
        if model == "gold":
            model = f"scripted:{gold_script(task, repo, Path(side))}"
        return _run(task, repo, args, model, keep)


def gold_script(task: Task, repo: Path, side: Path) -> Path:
    """A scripted model whose first reply is the gold solution as a unified diff (and whose
    second is a commit message)."""
    diff = "".join(
        "".join(
            difflib.unified_diff(
                (repo / rel).read_text().splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"a/{rel}",
                f"b/{rel}",
            )
        )
        for rel, text in task.gold.items()
    )
    script = side / "gold.jsonl"
    replies = [f"```diff\n{diff}```\n", "fix: the gold solution"]
    script.write_text("".join(json.dumps({"content": r}) + "\n" for r in replies))
    return script


def _run(
    task: Task, repo: Path, args: argparse.Namespace, model: str, keep: Path | None
) -> dict[str, Any]:
    cmd = [
        sys.executable, "-m", "patchwright", "run",
        "--repo", str(repo),
        "--task", task.task,
        "--model", model,
        "--yes",
        "--json",
        "--max-iter", str(args.max_iter),
        "--edit-format", args.edit_format,
        "--test-timeout", str(int(task.test_timeout)),
        "--candidates", str(args.candidates),
        "--strategy", args.strategy,
        *(["--no-commit"] if not args.commits else []),
        *(["--test-cmd", task.test_cmd] if task.test_cmd else []),
    ]  # fmt: skip
    started = time.monotonic()
    done = run_bounded(
        cmd, cwd=repo, timeout=args.timeout, env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    )
    wall = time.monotonic() - started
    out: dict[str, Any]
    if done.timed_out:
        out = {"outcome": "timeout"}
    else:
        lines = done.stdout.strip().splitlines()
        try:
            out = json.loads(lines[-1]) if lines else {"outcome": "error"}
        except json.JSONDecodeError:
            out = {"outcome": "error", "stdout": done.stdout[-500:]}
        if not lines:
            out["stderr"] = done.stderr[-500:]
    record = summary(repo)
    if keep is not None:
        shutil.rmtree(keep, ignore_errors=True)
        if (repo / ".patchwright" / "runs").is_dir():
            shutil.copytree(repo / ".patchwright" / "runs", keep)
    usage = out.get("usage") or {}
    return {
        "outcome": out.get("outcome"),
        "claimed": out.get("outcome") == "solved",
        "iterations": out.get("iterations", 0),
        "first_try": bool(record.get("first_try")),
        "calls_self": out.get("calls"),
        "steps": out.get("steps"),
        "strategy": out.get("strategy"),
        "retries": out.get("retries"),
        "tokens_self": int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0)),
        "seconds": round(wall, 1),
        "tests_gate": (record.get("gates") or {}).get("tests"),
        "error": out.get("stderr") or out.get("stdout"),
    }


def summary(repo: Path) -> dict[str, Any]:
    """The agent's own record of the run (summary.json), or {} when it wrote none."""
    for found in (repo / ".patchwright" / "runs").glob("*/summary.json"):
        return dict(json.loads(found.read_text()))
    return {}
