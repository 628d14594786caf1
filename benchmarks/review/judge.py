"""Judging a benchmark repository: its tests, lint and type problems, each planted defect
fixed or not, and regressions — and the no-model sanity check of a fixture itself.

The sanity check (``run.py --check``, and ``tests/modes/review/test_bench_fixtures.py`` for
its quick half) proves a fixture says what it plants: at the start exactly the planted tests
fail and exactly the planted lint errors are reported, every planted type error is there; each
defect's hand fix alone makes its own check hold and breaks nothing that held; all the hand
fixes together leave no failing test, lint error or type error.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from planted import Defect, Fixture

Problems = list[tuple[str, str]]  # (path, ruff code or mypy message)


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout


def write_files(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def materialise(fixture: Fixture, root: Path) -> Path:
    """The fixture as a git repository at ``root``, its defects committed."""
    write_files(root, fixture.files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"{fixture.name} with planted defects")
    return root


def test_outcomes(repo: Path, *ids: str) -> dict[str, str]:
    """Each test's outcome (``-rA`` summary lines) on the tree at ``repo``."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *ids],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    found = re.findall(r"^(PASSED|FAILED|ERROR) (\S+)", run.stdout, re.M)
    return {test: outcome for outcome, test in found}


def lint_problems(repo: Path) -> Problems:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json", "."],
        cwd=repo, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    items = json.loads(run.stdout or "[]")
    return [(Path(i["filename"]).resolve().relative_to(repo.resolve()).as_posix(), i["code"])
            for i in items]  # fmt: skip


def type_problems(repo: Path, package: str) -> Problems:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary", package],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    found = re.findall(r"^([^:\n]+):\d+: error: (.*)$", run.stdout, re.M)
    return [(path, re.sub(r"\s+\[[\w-]+\]$", "", msg)) for path, msg in found]


def defines(repo: Path, path: str, name: str) -> bool:
    try:
        tree = ast.parse((repo / path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return False
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(n, kinds) and n.name == name for n in ast.walk(tree))


@dataclass
class State:
    """What the checks say of one tree."""

    tests: dict[str, str]
    lint: Problems
    types: Problems

    @classmethod
    def of(cls, repo: Path, package: str) -> State:
        return cls(test_outcomes(repo), lint_problems(repo), type_problems(repo, package))

    def holds(self, repo: Path, defect: Defect) -> bool:
        """The defect's own check holds (and the code it lives in is still there)."""
        if not defines(repo, defect.path, defect.keep):
            return False
        if defect.kind == "test":
            return self.tests.get(defect.check) == "PASSED"
        if defect.kind == "lint":
            return (defect.path, defect.check) not in self.lint
        return not any(p == defect.path and defect.check in m for p, m in self.types)

    def failing(self) -> set[str]:
        return {t for t, outcome in self.tests.items() if outcome != "PASSED"}


def new_static(before: Problems, after: Problems) -> list[str]:
    extra = Counter(after) - Counter(before)
    return sorted(f"{path}: {what}" for (path, what), n in extra.items() for _ in range(n))


def commit_regressions(repo: Path, base: str) -> list[dict[str, object]]:
    """For each commit after ``base``: tests that passed at its parent and fail at it."""
    found = []
    commits = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    scratch = Path(tempfile.mkdtemp(prefix="review-bench-wt-"))
    try:
        before = _outcomes_at(repo, base, scratch / "base")
        for i, sha in enumerate(commits):
            after = _outcomes_at(repo, sha, scratch / f"c{i}")
            broke = sorted(
                t for t, o in after.items() if o != "PASSED" and before.get(t) == "PASSED"
            )
            if broke:
                found.append({"commit": sha[:12], "tests": broke})
            before = after
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        git(repo, "worktree", "prune")
    return found


def _outcomes_at(repo: Path, sha: str, where: Path) -> dict[str, str]:
    git(repo, "worktree", "add", "-q", "--detach", str(where), sha)
    try:
        return test_outcomes(where)
    finally:
        git(repo, "worktree", "remove", "--force", str(where))


# -- the fixture's own consistency --------------------------------------------------------
def planted_state(fixture: Fixture, state: State) -> list[str]:
    """What is wrong with the planted tree's state (empty: exactly what is planted)."""
    wrong: list[str] = []
    planted_tests = {d.check for d in fixture.defects if d.kind == "test"}
    planted_tests |= {t for d in fixture.defects for t in d.also}
    if state.failing() != planted_tests:
        wrong.append(f"failing tests {sorted(state.failing())}, planted {sorted(planted_tests)}")
    planted_lint = sorted((d.path, d.check) for d in fixture.defects if d.kind == "lint")
    if sorted(state.lint) != planted_lint:
        wrong.append(f"lint problems {sorted(state.lint)}, planted {planted_lint}")
    for d in fixture.defects:
        if d.kind == "types" and not any(p == d.path and d.check in m for p, m in state.types):
            wrong.append(f"type error {d.check!r} is not reported in {d.path}")
    return wrong


def fixed_state(state: State) -> list[str]:
    """What is left in a tree with every hand fix applied (empty: nothing)."""
    left = [f"test {t} fails" for t in sorted(state.failing())]
    left += [f"lint {p}: {c}" for p, c in state.lint]
    left += [f"types {p}: {m}" for p, m in state.types]
    return left


def sanity(fixture: Fixture, work: Path, *, each: bool = True) -> list[str]:
    """Everything that contradicts the fixture's description (empty: consistent). ``each``:
    also each hand fix alone (a full check per defect: slower)."""
    wrong: list[str] = []
    planted = write_files(work / "planted", fixture.files)
    start = State.of(planted, fixture.package)
    wrong += [f"planted: {w}" for w in planted_state(fixture, start)]
    everything = write_files(work / "fixed", fixture.fixed_text(fixture.defects))
    wrong += [f"all fixed: {w}" for w in fixed_state(State.of(everything, fixture.package))]
    for i, defect in enumerate(fixture.defects if each else []):
        tree = write_files(work / f"fix{i}", fixture.fixed_text([defect]))
        now = State.of(tree, fixture.package)
        if not now.holds(tree, defect):
            wrong.append(f"{defect.name}: its hand fix does not make its check hold")
        broke = sorted(now.failing() - start.failing())
        broke += new_static(start.lint + start.types, now.lint + now.types)
        if broke:
            wrong.append(f"{defect.name}: its hand fix breaks {broke}")
    return wrong
