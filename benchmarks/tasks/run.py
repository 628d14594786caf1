"""Task benchmark: materialise each task in a temp git repo, run ``patchwright run --yes
--json`` on it, judge with the task's own tests, and print the figures.

    python benchmarks/tasks/run.py /work/shared/bench/humanevalfix_python.jsonl --limit 30
    python benchmarks/tasks/run.py /work/shared/bench/exercism_python_dev64.jsonl --limit 30

Two framings:

* ``--framing user`` (default) — as users call the tool: the task's tests are committed in the
  repository, the task text does not name them, and ``--test-cmd`` is the task's own test
  command. The judge restores the test files and runs that same command.
* ``--framing hidden`` — the tests are hidden from the agent and restored only to judge; the
  HumanEvalFix task names a visible example test. (The framing of earlier figures.)

A solution the agent claims (``solved``) that the judge rejects is counted separately: with
the user framing it must be 0.

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
    test_cmd: str | None = None  # given to the agent as --test-cmd (user framing)


def _python(cmd: str) -> str:
    """The task's test command run by this interpreter (it has pytest)."""
    if cmd.startswith("pytest"):
        return f"{sys.executable} -m {cmd}"
    return cmd.replace("python ", f"{sys.executable} ", 1)


def user_framed(row: dict[str, object]) -> Task:
    """The task as a user would give it: tests in the repo, named only by --test-cmd."""
    if "slug" in row:  # Exercism
        solution = dict(row["solution_files"])  # type: ignore[call-overload]
        stub = next(iter(solution))
        tests = dict(row["test_files"])  # type: ignore[call-overload]
        files = solution | dict(row.get("editor_files") or {}) | tests  # type: ignore[call-overload]
        raw = str(row["test_command"])
        text = f"Implement the exercise in {stub} (replace the stubs).\n\n{row['instructions']}"
        return Task(str(row["slug"]), text, files, tests, raw, _python(raw))
    entry = row["entry_point"]
    test = f"from solution import *  # noqa: F403\n\n{row['test']}\n\ndef test_check():\n    check({entry})\n"
    raw = "pytest -q -p no:cacheprovider test_solution.py"
    return Task(
        str(row["task_id"]),
        f"Fix the bug in `{entry}` in solution.py: it gives wrong results for some inputs. "
        "It must behave as its docstring says.",
        {"solution.py": str(row["prompt"]) + str(row["buggy_solution"]), "test_solution.py": test},
        {"test_solution.py": test},
        raw,
        _python(raw),
    )


def load_tasks(path: Path, framing: str = "user") -> list[Task]:
    tasks: list[Task] = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if framing == "user":
            tasks.append(user_framed(row))
        elif "slug" in row:  # Exercism
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
    cmd = _python(task.judge)
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
            "--candidates",
            str(args.candidates),
            "--strategy",
            args.strategy,
            *(["--test-cmd", task.test_cmd] if task.test_cmd else []),
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
        record = _summary(repo)
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
        "first_try": bool(record.get("first_try")),
        "calls": out.get("calls"),
        "steps": out.get("steps"),
        "strategy": out.get("strategy"),
        "retries": out.get("retries"),
        "tokens": tokens,
        "seconds": round(wall, 1),
        "model": args.model,
        "edit_format": args.edit_format,
        "framing": args.framing,
        "candidates": args.candidates,
        "tests_gate": (record.get("gates") or {}).get("tests"),
    }


def _summary(repo: Path) -> dict[str, object]:
    """The agent's own record of the run (summary.json), or {} when it wrote none."""
    for summary in (repo / ".patchwright" / "runs").glob("*/summary.json"):
        return dict(json.loads(summary.read_text()))
    return {}


def report(rows: list[dict[str, object]]) -> None:
    if not rows:
        print("no results")
        return
    solved = [r for r in rows if r["passed"]]
    first = [r for r in solved if r.get("first_try", r["iterations"] == 1)]
    tokens = [int(r["tokens"]) for r in rows]  # type: ignore[call-overload]
    solved_tokens = [int(r["tokens"]) for r in solved]  # type: ignore[call-overload]
    print(f"tasks                 {len(rows)}")
    print(f"solved                {len(solved)}/{len(rows)} ({100 * len(solved) / len(rows):.1f}%)")
    print(f"solved first attempt  {len(first)}/{len(rows)}")
    print(f"median wall time      {statistics.median(float(r['seconds']) for r in rows):.1f} s")  # type: ignore[arg-type]
    print(f"tokens per task       {statistics.mean(tokens):.0f} (mean)")
    steps = [int(r["steps"]) for r in rows if r.get("steps")]  # type: ignore[call-overload]
    if steps:
        print(f"agent steps per task  {statistics.mean(steps):.1f} (mean)")
    if solved_tokens:
        print(f"tokens per solved     {sum(tokens) / len(solved_tokens):.0f} (all tokens / solved)")
    outcomes: dict[str, int] = {}
    for r in rows:
        outcomes[str(r["outcome"])] = outcomes.get(str(r["outcome"]), 0) + 1
    print(f"agent outcomes        {outcomes}")
    claimed = [r for r in rows if r["outcome"] == "solved"]
    wrong = [r for r in claimed if not r["passed"]]
    unverified = [r for r in rows if r["outcome"] == "unverified"]
    print(f"claimed but rejected  {len(wrong)}/{len(claimed)} claimed solved")
    print(
        f"unverified            {len(unverified)} ({sum(bool(r['passed']) for r in unverified)}"
        " of them pass the judge)"
    )
    solved_seconds = [float(r["seconds"]) for r in solved]  # type: ignore[arg-type]
    if solved_seconds:
        print(f"median wall (solved)  {statistics.median(solved_seconds):.1f} s")


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
    parser.add_argument("--framing", choices=("user", "hidden"), default="user")
    parser.add_argument("--candidates", default="1", help="--candidates for the agent: N or auto")
    parser.add_argument("--strategy", default="pipeline", choices=("auto", "pipeline", "agent"))
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
    name = (
        f"tasks-{args.tasks.stem}-{args.framing}-{args.strategy}-{args.edit_format}"
        f"-k{args.candidates}.jsonl"
    )
    out = args.out or PROJECT / ".bench-cache" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    done = (
        {json.loads(line)["task_id"]: json.loads(line) for line in out.read_text().splitlines()}
        if out.exists()
        else {}
    )
    tasks = load_tasks(args.tasks, args.framing)[args.offset : args.offset + args.limit]
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
