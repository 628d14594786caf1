"""Specification of transactional no-regression (TNR): each candidate is written, gated
(syntax, then the mode's checks), measured (churn from ``git diff --numstat``) and rolled
back; among the passing candidates the diff most candidates agree on wins, then the least
churn, then the first. Refused or empty candidates are never tried.

One candidate's trial runs the fair mode's real :class:`OwnTests` over a real checkout, a
shell command standing in for the test run (it prints pytest's ``-rA`` summary lines); the
choice among several candidates is judged by an in-process check of the same rule, since a
sandboxed run per candidate costs a tenth of a second or more."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from swebench_case import git

from patchwright.envs import InstanceSandbox, host_environment
from patchwright.events import EventBus
from patchwright.modes.swebench.checks import OWN, OwnTests
from patchwright.modes.swebench.grading import Grade, grade
from patchwright.modes.swebench.tnr import (
    Candidate,
    Trial,
    git_diff,
    syntax_gate,
    tnr,
    try_candidate,
)

ORIGINAL = "VALUE = 1\n\n\ndef other():\n    return True\n"
FIXED = ORIGINAL.replace("VALUE = 1", "VALUE = 2")
CHECK = (
    "touch ran; "
    "grep -q 'VALUE = 2' m.py && echo 'PASSED t.py::test_fix' || echo 'FAILED t.py::test_fix'; "
    "grep -q 'def other' m.py && echo 'PASSED t.py::test_keep' || echo 'FAILED t.py::test_keep'"
)
CHECKS = OwnTests("o/r", CHECK, passing=("t.py::test_keep",), reproducing=("t.py::test_fix",))


class SameRule:
    """The checks of ``CHECK`` read in process: the fix must hold and ``other`` must stay."""

    oracle = False
    proves_fix = True

    def __init__(self) -> None:
        self.runs = 0

    def run(self, env: InstanceSandbox, timeout: float) -> tuple[Grade, str | None]:
        self.runs += 1
        path = env.repo / "m.py"
        text = path.read_text() if path.is_file() else ""
        status = {"t.py::test_fix": "PASSED" if "VALUE = 2" in text else "FAILED",
                  "t.py::test_keep": "PASSED" if "def other" in text else "FAILED"}  # fmt: skip
        return grade(status, ["t.py::test_fix"], ["t.py::test_keep"], names=OWN), None


@pytest.fixture
def env(tmp_path: Path) -> Iterator[InstanceSandbox]:
    repo = tmp_path / "home" / "repo"
    repo.mkdir(parents=True)
    (repo / "m.py").write_text(ORIGINAL)
    (repo / ".gitignore").write_text("ran\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    sandbox = host_environment(tmp_path / "home", repo)
    yield sandbox
    sandbox.close()


def cand(number: int, text: str | None, **extra: bytes | None) -> Candidate:
    changes: dict[str, bytes | None] = {"m.py": text.encode() if text is not None else None}
    changes.update(extra)
    return Candidate(number, changes)


# -- trials -------------------------------------------------------------------------------


def test_a_trial_passes_only_with_a_resolved_grade_and_no_syntax_failure() -> None:
    resolved = grade({"t": "PASSED"}, ["t"], [])
    assert Trial(1, grade=resolved, gates={"syntax": "passed"}).passed
    assert not Trial(1, grade=resolved, gates={"syntax": "failed"}).passed
    assert not Trial(1).passed  # never graded
    assert not Trial(1, grade=grade({}, ["t"], [])).passed


def test_the_closest_trial_fixes_most_then_breaks_least_then_churns_least() -> None:
    def trial(number: int, status: dict[str, str], churn: float) -> Trial:
        return Trial(number, churn=churn, grade=grade(status, ["f1", "f2"], ["p1", "p2"]))

    trials = [
        Trial(0, churn=0.0),  # never graded: the farthest
        trial(1, {"f1": "PASSED", "p1": "PASSED", "p2": "PASSED"}, 1.0),
        trial(2, {"f1": "PASSED", "f2": "PASSED"}, 1.0),
        trial(3, {"f1": "PASSED", "f2": "PASSED", "p1": "PASSED"}, 9.0),
        trial(4, {"f1": "PASSED", "f2": "PASSED", "p1": "PASSED"}, 2.0),
    ]
    ordered = sorted(trials, key=lambda t: t.rank(), reverse=True)
    assert [t.number for t in ordered] == [4, 3, 2, 1, 0]


def test_a_trial_record_is_plain_json_with_its_grade() -> None:
    trial = Trial(2, diff="d", churn=1.0, gates={"syntax": "passed"}, seconds=0.123456,
                  grade=grade({"t": "PASSED"}, ["t"], []))  # fmt: skip
    data = trial.to_json()
    assert data["candidate"] == 2 and data["passed"] is True and data["seconds"] == 0.12
    assert data["grade"]["resolved"] is True
    assert Trial(3).to_json()["grade"] is None


def test_the_syntax_gate_reads_only_python_files_that_remain() -> None:
    assert syntax_gate({"a.py": b"x = (\n", "notes.txt": b"x = (\n", "gone.py": None}) != []
    assert all("a.py" in p for p in syntax_gate({"a.py": b"def f(:\n"}))
    assert syntax_gate({"notes.txt": b"x = (\n", "gone.py": None, "ok.py": b"x = 1\n"}) == []


# -- git diff and churn ---------------------------------------------------------------------


def test_the_diff_includes_new_files_and_churn_is_the_mean_of_added_and_removed(
    env: InstanceSandbox,
) -> None:
    repo = env.repo
    (repo / "m.py").write_text(FIXED)
    (repo / "new.py").write_text("a = 1\nb = 2\nc = 3\n")
    diff, churn = git_diff(repo, ["m.py", "new.py"])
    assert "+VALUE = 2" in diff and "-VALUE = 1" in diff
    assert "diff --git a/new.py b/new.py" in diff and "+c = 3" in diff
    assert churn == (1 + 3 + 1) / 2  # m.py: 1 added, 1 removed; new.py: 3 added
    assert git(repo, "status", "--porcelain", "--", "new.py").startswith("??")  # not staged


# -- one candidate ------------------------------------------------------------------------


def test_a_candidate_is_measured_graded_and_rolled_back(env: InstanceSandbox) -> None:
    trial = try_candidate(env, CHECKS, cand(1, FIXED, **{"added.py": b"x = 1\n"}),
                          bus=EventBus(), timeout=30)  # fmt: skip
    assert trial.passed, trial.reason
    assert trial.gates == {"syntax": "passed", "REPRODUCTION": "passed", "REGRESSION": "passed"}
    assert trial.reason == "resolved" and trial.churn == 1.5
    assert (env.repo / "m.py").read_text() == ORIGINAL
    assert not (env.repo / "added.py").exists()


def test_a_candidate_that_breaks_a_passing_test_fails_its_regression_gate(
    env: InstanceSandbox,
) -> None:
    trial = try_candidate(env, CHECKS, cand(1, "VALUE = 2\n"), bus=EventBus(), timeout=30)
    assert not trial.passed
    assert trial.gates["REPRODUCTION"] == "passed" and trial.gates["REGRESSION"] == "failed"
    assert trial.reason == "1 REGRESSION broken: t.py::test_keep"
    assert (env.repo / "m.py").read_text() == ORIGINAL


def test_a_syntax_error_stops_the_trial_before_any_test_runs(env: InstanceSandbox) -> None:
    trial = try_candidate(env, CHECKS, cand(1, "VALUE = (\n"), bus=EventBus(), timeout=30)
    assert trial.gates == {"syntax": "failed"} and trial.grade is None
    assert trial.reason.startswith("syntax: ")
    assert not (env.repo / "ran").exists()  # the check command never ran
    assert "-VALUE = 1" in trial.diff  # measured all the same
    assert (env.repo / "m.py").read_text() == ORIGINAL


def test_deleting_a_file_is_a_change_that_is_rolled_back_too(env: InstanceSandbox) -> None:
    trial = try_candidate(env, CHECKS, cand(1, None), bus=EventBus(), timeout=30)
    assert "deleted file mode" in trial.diff
    assert trial.gates["syntax"] == "passed" and not trial.passed
    assert (env.repo / "m.py").read_text() == ORIGINAL


# -- choosing among candidates ------------------------------------------------------------


def test_refused_and_empty_candidates_are_never_tried(env: InstanceSandbox) -> None:
    refused = cand(1, FIXED)
    refused.refused = ["allowlist: changes files outside the suspects: x.py"]
    seen: list[int] = []
    checks = SameRule()
    winner, trials = tnr(env, checks, [refused, Candidate(2, {})], bus=EventBus(), timeout=30,
                         on_trial=lambda t: seen.append(t.number))  # fmt: skip
    assert (winner, trials, seen) == (None, [], [])
    assert checks.runs == 0


def test_with_no_passing_candidate_there_is_no_winner_but_every_trial_is_kept(
    env: InstanceSandbox,
) -> None:
    seen: list[int] = []
    checks = SameRule()
    winner, trials = tnr(env, checks, [cand(1, "VALUE = 2\n"), cand(2, ORIGINAL + "# x\n")],
                         bus=EventBus(), timeout=30, on_trial=lambda t: seen.append(t.number))  # fmt: skip
    assert winner is None
    assert [t.number for t in trials] == seen == [1, 2]
    assert (env.repo / "m.py").read_text() == ORIGINAL


def test_the_least_churn_wins_among_passing_candidates_that_disagree(
    env: InstanceSandbox,
) -> None:
    wordy = FIXED + "# the value was wrong\n# now it is right\n"
    checks = SameRule()
    winner, trials = tnr(env, checks, [cand(1, wordy), cand(2, FIXED)], bus=EventBus(), timeout=30)
    assert [t.passed for t in trials] == [True, True]
    assert winner is not None and winner.number == 2 and winner.churn == 1.0


def test_the_diff_most_candidates_agree_on_wins_over_a_smaller_one(env: InstanceSandbox) -> None:
    wordy = FIXED + "# the value was wrong\n"
    checks = SameRule()
    winner, _ = tnr(env, checks, [cand(1, FIXED), cand(2, wordy), cand(3, wordy)],
                    bus=EventBus(), timeout=30)  # fmt: skip
    assert winner is not None and winner.number == 2  # the first of the two that agree


def test_equal_candidates_go_to_the_first(env: InstanceSandbox) -> None:
    checks = SameRule()
    winner, _ = tnr(env, checks, [cand(4, FIXED), cand(7, FIXED)], bus=EventBus(), timeout=30)
    assert winner is not None and winner.number == 4
    assert git(env.repo, "status", "--porcelain") == ""  # the tree is left as it was
