"""The tasks: read from a JSONL set, materialised in a temp git repository, judged with
their own tests — the same repository and the same judge for every tool."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath


@dataclass
class Task:
    task_id: str
    task: str
    files: dict[str, str]  # visible to the agent
    hidden: dict[str, str]  # restored before judging
    judge: str
    test_cmd: str | None = None  # given to the agent as --test-cmd (user framing)
    language: str = "python"
    gold: dict[str, str] = field(default_factory=dict)  # never shown to a tool

    @property
    def test_timeout(self) -> float:
        """Seconds one run of the tests may take: a Rust task compiles its crate (and its
        dependencies, rand or regex) from scratch in each fresh repository."""
        return 240.0 if self.language == "rust" else 60.0

    def source_files(self) -> list[str]:
        """The files a solution edits: the visible ones that are no tests (what Aider's own
        benchmark adds to the chat)."""
        return [rel for rel in self.files if rel not in self.hidden and not is_test_file(rel)]

    def test_files(self) -> list[str]:
        return [rel for rel in self.files if rel not in self.source_files()]


def is_test_file(rel: str) -> bool:
    path = PurePosixPath(rel)
    return (
        "tests" in path.parts[:-1]
        or path.name.startswith("test_")
        or path.stem.endswith(("_test", ".test", ".spec"))
        or path.name == "tests.rs"
    )


HUMANEVALFIX_SLUG = re.compile(r"^(JavaScript|Go|Rust)-\d+$")


def python_cmd(cmd: str) -> str:
    """The task's test command run by this interpreter (it has pytest)."""
    if cmd.startswith("pytest"):
        return f"{sys.executable} -m {cmd}"
    return cmd.replace("python ", f"{sys.executable} ", 1)


def user_framed(row: dict[str, object]) -> Task:
    """The task as a user would give it: tests in the repo, named only by --test-cmd."""
    if "slug" in row:  # Exercism (Python or polyglot) or HumanEvalFix in another language
        solution = dict(row["solution_files"])  # type: ignore[call-overload]
        stub = next(iter(solution))
        support = dict(row.get("editor_files") or {})  # type: ignore[call-overload]
        tests = dict(row["test_files"])  # type: ignore[call-overload]
        files = solution | support | tests
        raw = str(row["test_command"])
        text = str(row["instructions"])
        if not HUMANEVALFIX_SLUG.match(str(row["slug"])):  # its text says "fix the bug in …"
            text = f"Implement the exercise in {stub} (replace the stubs).\n\n{text}"
        language = str(row.get("language") or "python")
        hidden = support | tests  # both restored before judging
        gold = dict(row.get("gold_solution") or {})  # type: ignore[call-overload]
        return Task(str(row["slug"]), text, files, hidden, raw, python_cmd(raw), language, gold)
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
        python_cmd(raw),
        gold={"solution.py": str(row["prompt"]) + str(row["canonical_solution"])},
    )


def hidden_framed(row: dict[str, object]) -> Task:
    """The tests hidden from the agent and restored only to judge (the earlier framing)."""
    if "slug" in row:  # Exercism
        solution = dict(row["solution_files"])  # type: ignore[call-overload]
        stub = next(iter(solution))
        return Task(
            task_id=str(row["slug"]),
            task=f"Implement the exercise in {stub} (replace the stubs).\n\n{row['instructions']}",
            files=solution | dict(row.get("editor_files") or {}),  # type: ignore[call-overload]
            hidden=dict(row["test_files"]),  # type: ignore[call-overload]
            judge=str(row["test_command"]),
        )
    entry = row["entry_point"]
    test = f"{row['test']}\n\ndef test_check():\n    check({entry})\n"
    lines = str(row["example_test"]).rstrip().splitlines()
    if lines and lines[-1].strip() == f"check({entry})":
        lines = lines[:-1]  # the module-level call; the test function calls it
    example = "\n".join(lines).rstrip()
    return Task(
        task_id=str(row["task_id"]),
        task=f"Fix the bug in `{entry}` in solution.py: it gives wrong results for some "
        f"inputs. It must behave as its docstring says. tests/test_example.py has "
        f"an example check.",
        files={
            "solution.py": str(row["prompt"]) + str(row["buggy_solution"]),
            "tests/test_example.py": f"from solution import *  # noqa: F403\n\n\n"
            f"{example}\n\n\ndef test_example():\n    check({entry})\n",
        },
        hidden={"test_hidden.py": "from solution import *  # noqa: F403\n\n" + test},
        judge="python -m pytest -q -p no:cacheprovider test_hidden.py",
    )


def load_tasks(path: Path, framing: str = "user") -> list[Task]:
    framed = user_framed if framing == "user" else hidden_framed
    return [framed(json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def git(repo: Path, *args: str) -> None:
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
    git(into, "init", "-q", "-b", "main")
    git(into, "add", "-A")
    git(into, "commit", "-q", "-m", "task")


@dataclass
class Finished:
    """A command's end: its exit status (None when it ran out of time) and output."""

    returncode: int | None
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_bounded(
    cmd: list[str] | str,
    *,
    cwd: Path,
    timeout: float,
    env: dict[str, str] | None = None,
    capture: bool = True,
) -> Finished:
    """Run ``cmd`` in its own process group; past ``timeout`` the whole group is killed (an
    infinite loop in a test, a tool's children, must not outlive it)."""
    pipe = subprocess.PIPE if capture else subprocess.DEVNULL
    proc = subprocess.Popen(
        cmd,
        shell=isinstance(cmd, str),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=pipe,
        stderr=pipe,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
        return Finished(proc.returncode, out or "", err or "")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Finished(None, out or "", err or "")
    except BaseException:  # the benchmark itself stopped (SIGTERM, Ctrl-C): no orphans
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        raise


def judge(task: Task, repo: Path, timeout: float) -> bool:
    """Restore the task's own tests (and the support files a tool may have changed) and run
    its own command with ``sh -c``: exit 0 passes."""
    for rel, text in task.hidden.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    limit = max(timeout, 4 * task.test_timeout)
    rust = task.language == "rust"
    done = run_bounded(python_cmd(task.judge), cwd=repo, timeout=limit, capture=rust)
    if rust and done.returncode == 0:
        output = done.stdout + done.stderr
        return every_rust_test_passed(task.hidden, output) and test_links_kept(task, repo)
    return done.returncode == 0


_TEST_LINK = re.compile(r"^\s*#\[cfg\(test\)\]\s*\n\s*mod\s+\w+\s*;", re.M)


def test_links_kept(task: Task, repo: Path) -> bool:
    """Each ``#[cfg(test)] mod NAME;`` of the task's source files is still there: a module
    of the tool's own in its place runs the tool's copy of the tests, under the same test
    names, instead of the restored file."""
    for rel in task.source_files():
        links = _TEST_LINK.findall(task.files[rel])
        path = repo / rel
        text = path.read_text(errors="replace") if path.is_file() else ""
        now = {" ".join(x.split()) for x in _TEST_LINK.findall(text)}
        if any(" ".join(x.split()) not in now for x in links):
            return False
    return True


_RUST_TEST = re.compile(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*(?:pub\s+)?fn\s+(\w+)")


def every_rust_test_passed(hidden: dict[str, str], output: str) -> bool:
    """Each ``#[test]`` function of the task's test files said ``... ok``: restoring
    HumanEvalFix's ``src/tests.rs`` proves nothing when the tool swapped the ``mod tests;``
    that reads it for a module of its own (cargo test then exits 0 without it)."""
    names = {
        n for rel, text in hidden.items() if rel.endswith(".rs") for n in _RUST_TEST.findall(text)
    }
    passed = set(re.findall(r"^test (?:\S+::)?(\w+) \.\.\. ok$", output, re.M))
    return names <= passed
