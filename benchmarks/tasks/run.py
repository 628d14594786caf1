"""Task benchmark: materialise each task in a temp git repo, run ``patchwright run --yes
--json`` on it, judge with the task's own (hidden) tests, and print the figures.

    python benchmarks/tasks/run.py /work/shared/bench/humanevalfix_python.jsonl --limit 30
    python benchmarks/tasks/run.py /work/shared/bench/exercism_python_dev64.jsonl --limit 30

Results are appended to ``--out`` (one JSON line per task) and tasks already there are
skipped, so an interrupted benchmark resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve()
PROJECT = HERE.parents[2]


@dataclass
class Task:
    task_id: str
    task: str
    files: dict[str, str]  # visible to the agent
    hidden: dict[str, str]  # restored before judging
    judge: str


def load_tasks(path: Path) -> list[Task]:
    tasks: list[Task] = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if "slug" in row:  # Exercism
            stub = next(iter(row["solution_files"]))
            tasks.append(
                Task(
                    task_id=row["slug"],
                    task=f"Implement the exercise in {stub} (replace the stubs).\n\n{row['instructions']}",
                    files=dict(row["solution_files"]) | dict(row.get("editor_files") or {}),
                    hidden=dict(row["test_files"]),
                    judge=row["test_command"],
                )
            )
        else:  # HumanEvalFix
            entry = row["entry_point"]
            test = row["test"] + f"\n\ndef test_check():\n    check({entry})\n"
            lines = row["example_test"].rstrip().splitlines()
            if lines and lines[-1].strip() == f"check({entry})":
                lines = lines[:-1]  # the module-level call; the test function calls it
            example = "\n".join(lines).rstrip()
            tasks.append(
                Task(
                    task_id=row["task_id"],
                    task=f"Fix the bug in `{entry}` in solution.py: it gives wrong results for some "
                    f"inputs. It must behave as its docstring says. tests/test_example.py has "
                    f"an example check.",
                    files={
                        "solution.py": row["prompt"] + row["buggy_solution"],
                        "tests/test_example.py": f"from solution import *  # noqa: F403\n\n\n"
                        f"{example}\n\n\ndef test_example():\n    check({entry})\n",
                    },
                    hidden={"test_hidden.py": "from solution import *  # noqa: F403\n\n" + test},
                    judge="python -m pytest -q -p no:cacheprovider test_hidden.py",
                )
            )
    return tasks


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def materialise(task: Task, into: Path) -> None:
    for rel, text in task.files.items():
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        (into / rel).write_text(text)
    _git(into, "init", "-q", "-b", "main")
    _git(into, "add", "-A")
    _git(into, "commit", "-q", "-m", "task")


def judge(task: Task, repo: Path, timeout: float) -> bool:
    for rel, text in task.hidden.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    cmd = task.judge.replace("python ", f"{sys.executable} ", 1)
    if cmd.startswith("pytest"):
        cmd = f"{sys.executable} -m {cmd}"
    proc = subprocess.Popen(
        cmd,
        shell=True,
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        return proc.wait(timeout=timeout) == 0
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # an infinite loop must not outlive the judge
        proc.wait()
        return False


def run_one(task: Task, args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="pw-task-") as tmp:
        repo = Path(tmp)
        materialise(task, repo)
        cmd = [
            sys.executable,
            "-m",
            "patchwright",
            "run",
            "--repo",
            str(repo),
            "--task",
            task.task,
            "--model",
            args.model,
            "--yes",
            "--json",
            "--max-iter",
            str(args.max_iter),
            "--edit-format",
            args.edit_format,
            "--test-timeout",
            "60",
        ]
        started = time.monotonic()
        try:
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=args.timeout,
                env={**os.environ, "OMP_WAIT_POLICY": "PASSIVE"},
            )
            lines = proc.stdout.strip().splitlines()
            out = (
                json.loads(lines[-1])
                if lines
                else {"outcome": "error", "stderr": proc.stderr[-500:]}
            )
        except subprocess.TimeoutExpired:
            out = {"outcome": "timeout"}
        except json.JSONDecodeError:
            out = {"outcome": "error", "stdout": proc.stdout[-500:]}
        wall = time.monotonic() - started
        tests_gate = _tests_gate(repo)
        passed = judge(task, repo, timeout=120)
        if args.keep_records:
            keep = args.keep_records / task.task_id.replace("/", "_")
            shutil.rmtree(keep, ignore_errors=True)
            if (repo / ".patchwright" / "runs").is_dir():
                shutil.copytree(repo / ".patchwright" / "runs", keep)
    usage = out.get("usage") or {}
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))  # type: ignore[union-attr]
    return {
        "task_id": task.task_id,
        "passed": passed,
        "outcome": out.get("outcome"),
        "iterations": out.get("iterations", 0),
        "tokens": tokens,
        "seconds": round(wall, 1),
        "model": args.model,
        "edit_format": args.edit_format,
        "tests_gate": tests_gate,
    }


def _tests_gate(repo: Path) -> str | None:
    """How the agent's tests gate ended on its last check ("skipped": nothing proved it)."""
    for summary in (repo / ".patchwright" / "runs").glob("*/summary.json"):
        gates = json.loads(summary.read_text()).get("gates") or {}
        return str(gates["tests"]) if "tests" in gates else None
    return None


def report(rows: list[dict[str, object]]) -> None:
    if not rows:
        print("no results")
        return
    solved = [r for r in rows if r["passed"]]
    first = [r for r in solved if r["iterations"] == 1]
    tokens = [int(r["tokens"]) for r in rows]  # type: ignore[call-overload]
    solved_tokens = [int(r["tokens"]) for r in solved]  # type: ignore[call-overload]
    print(f"tasks                 {len(rows)}")
    print(f"solved                {len(solved)}/{len(rows)} ({100 * len(solved) / len(rows):.1f}%)")
    print(f"solved first attempt  {len(first)}/{len(rows)}")
    print(f"median wall time      {statistics.median(float(r['seconds']) for r in rows):.1f} s")  # type: ignore[arg-type]
    print(f"tokens per task       {statistics.mean(tokens):.0f} (mean)")
    if solved_tokens:
        print(f"tokens per solved     {sum(tokens) / len(solved_tokens):.0f} (all tokens / solved)")
    outcomes: dict[str, int] = {}
    for r in rows:
        outcomes[str(r["outcome"])] = outcomes.get(str(r["outcome"]), 0) + 1
    print(f"agent outcomes        {outcomes}")
    claimed = [r for r in rows if r["outcome"] == "solved"]
    wrong = [r for r in claimed if not r["passed"]]
    unproved = [r for r in wrong if r.get("tests_gate") == "skipped"]
    print(
        f"claimed, judged wrong {len(wrong)}/{len(claimed)} claimed"
        f" ({len(unproved)} of them said no test had run)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--max-iter", type=int, default=2)
    parser.add_argument("--edit-format", default="auto")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument(
        "--keep-records",
        type=Path,
        default=None,
        help="copy each task's run record (events, trajectory) here",
    )
    args = parser.parse_args()
    out = args.out or PROJECT / ".bench-cache" / f"tasks-{args.tasks.stem}-{args.edit_format}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    done = (
        {json.loads(line)["task_id"]: json.loads(line) for line in out.read_text().splitlines()}
        if out.exists()
        else {}
    )
    tasks = load_tasks(args.tasks)[args.offset : args.offset + args.limit]
    if not args.report_only:
        for i, task in enumerate(tasks, 1):
            if task.task_id in done:
                continue
            row = run_one(task, args)
            done[task.task_id] = row
            with out.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
            print(
                f"[{i}/{len(tasks)}] {task.task_id}: {'PASS' if row['passed'] else 'fail'} "
                f"({row['outcome']}, {row['iterations']} it, {row['seconds']}s, {row['tokens']} tok)",
                flush=True,
            )
    report([done[t.task_id] for t in tasks if t.task_id in done])


if __name__ == "__main__":
    main()
