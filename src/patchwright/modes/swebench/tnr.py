"""Transactional no-regression (TNR): each finalist is written as a transaction, gated —
syntax of the changed Python files, then the :mod:`.checks` of the mode (by default the
repository's own tests at the base commit and the agent's reproduction test; with
``--oracle-tests`` the hidden FAIL_TO_PASS and PASS_TO_PASS) — measured (churn µ from
``git diff --numstat``) and rolled back. Among the passing candidates the one most others
agree with (the same diff) wins, then the least churn, then the first; the tree is left as
it was, and the winner's diff is the prediction."""

from __future__ import annotations

import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchwright.envs import InstanceSandbox
from patchwright.events import EventBus, TnrKept, TnrResult, TnrTrial
from patchwright.modes.swebench.checks import Checks
from patchwright.modes.swebench.grading import Grade
from patchwright.modes.swebench.tests import PatchError
from patchwright.verify.syntax import python_problems
from patchwright.workspace.transaction import Transaction


@dataclass
class Candidate:
    """A proposed change: its new file bytes (None deletes) and where it came from."""

    number: int
    changes: dict[str, bytes | None]
    source: str = "model"
    refused: list[str] = field(default_factory=list)  # validator reasons


@dataclass
class Trial:
    """What TNR found for one candidate."""

    number: int
    diff: str = ""
    churn: float = 0.0
    gates: dict[str, str] = field(default_factory=dict)
    grade: Grade | None = None
    reason: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return (
            self.grade is not None and self.grade.resolved and self.gates.get("syntax") != "failed"
        )

    def rank(self) -> tuple[int, int, float]:
        """Closest to passing first: F2P passing, fewest P2P broken, least churn."""
        if self.grade is None:
            return (-1, 0, self.churn)
        return (len(self.grade.f2p_passed), -len(self.grade.p2p_failed), -self.churn)

    def to_json(self) -> dict[str, Any]:
        return {"candidate": self.number, "passed": self.passed, "churn": self.churn,
                "gates": self.gates, "reason": self.reason, "seconds": round(self.seconds, 2),
                "grade": self.grade.to_json() if self.grade else None}  # fmt: skip


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    return proc.stdout


def git_diff(repo: Path, paths: Sequence[str]) -> tuple[str, float]:
    """The diff of ``paths`` against HEAD (new files included) and its churn µ — the mean
    of added and removed lines from ``git diff --numstat``."""
    new = [p for p in paths if (repo / p).exists() and not _git(repo, "ls-files", "--", p).strip()]
    if new:
        _git(repo, "add", "-N", "--", *new)
    diff = _git(repo, "diff", "--no-color", "--no-ext-diff", "HEAD", "--", *paths)
    numstat = _git(repo, "diff", "--numstat", "HEAD", "--", *paths)
    if new:
        _git(repo, "reset", "-q", "--", *new)
    added = removed = 0
    for row in numstat.splitlines():
        a, r, *_ = row.split("\t")
        added += int(a) if a.isdigit() else 0
        removed += int(r) if r.isdigit() else 0
    return diff, (added + removed) / 2


def syntax_gate(changes: dict[str, bytes | None]) -> list[str]:
    """Syntax errors in the changed Python files."""
    found = []
    for path, data in changes.items():
        if data is not None and path.endswith(".py"):
            found += [p.render() for p in python_problems(path, data.decode("utf-8", "replace"))]
    return found


def try_candidate(
    env: InstanceSandbox, checks: Checks, candidate: Candidate, *, bus: EventBus, timeout: float
) -> Trial:
    """Write, gate, measure and roll back one candidate."""
    started = time.monotonic()
    trial = Trial(candidate.number)
    txn = Transaction(env.repo)
    txn.stage(candidate.changes)
    try:
        txn.write()
        bus.emit(TnrTrial(candidate=candidate.number, paths=sorted(candidate.changes)))
        trial.diff, trial.churn = git_diff(env.repo, sorted(candidate.changes))
        problems = syntax_gate(candidate.changes)
        trial.gates["syntax"] = "failed" if problems else "passed"
        if problems:
            trial.reason = "syntax: " + "; ".join(problems[:3])
            return trial
        trial.grade, problem = checks.run(env, timeout)
        must, still = trial.grade.names
        trial.gates[must] = "failed" if trial.grade.f2p_failed else "passed"
        trial.gates[still] = "failed" if trial.grade.p2p_failed else "passed"
        trial.reason = problem or trial.grade.reason()
    except PatchError as exc:
        trial.reason = f"the test patch does not apply over this change: {exc}"
    finally:
        txn.rollback()
        trial.seconds = time.monotonic() - started
        bus.emit(TnrResult(candidate=candidate.number, passed=trial.passed,
                           churn=trial.churn, reason=trial.reason[:500]))  # fmt: skip
    return trial


def tnr(
    env: InstanceSandbox, checks: Checks, candidates: Sequence[Candidate], *, bus: EventBus,
    timeout: float, on_trial: Callable[[Trial], None] = lambda _t: None,
) -> tuple[Trial | None, list[Trial]]:  # fmt: skip
    """Try every valid candidate; the winner among the passing ones (see the module
    docstring), and all trials."""
    trials = []
    for candidate in candidates:
        if candidate.refused or not candidate.changes:
            continue
        trial = try_candidate(env, checks, candidate, bus=bus, timeout=timeout)
        trials.append(trial)
        on_trial(trial)
    passing = [t for t in trials if t.passed]
    votes = Counter(t.diff for t in passing)
    winner = min(passing, key=lambda t: (-votes[t.diff], t.churn, t.number)) if passing else None
    if winner is not None:
        bus.emit(TnrKept(candidate=winner.number, churn=winner.churn))
    return winner, trials
