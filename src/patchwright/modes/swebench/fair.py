"""The default (fair) groundwork: only what a leaderboard allows — the issue text and the
repository at its base commit. Nothing of the instance's ``test_patch``, FAIL_TO_PASS or
PASS_TO_PASS is applied, run, read or used.

1. Suspects from the index (``patchwright locate`` on the issue) and the traceback frames
   the issue quotes.
2. The repository's own test files for the suspects' files (:mod:`.own_tests`).
3. With ``--reproduce``, a test the model writes from the issue (:mod:`.reproduce`).
4. One baseline run of both before any change (under coverage when there is a reproduction
   test): the repository's tests that pass must keep passing; the reproduction's tests that
   fail (if any) must come to pass. A reproduction test that fails also gives SBFL and its
   traceback frames, and the suspects are ranked again with them.
"""

from __future__ import annotations

from pathlib import Path

from patchwright.agent.session import Session
from patchwright.events import BaselineStart, EventBus, RepoTestsBaseline, ReproductionTest
from patchwright.modes.swebench.checks import Groundwork, OwnTests, failure_excerpt
from patchwright.modes.swebench.localise import (
    Signals,
    Suspect,
    fuse,
    index_signal,
    issue_frames,
)
from patchwright.modes.swebench.localise import traceback_functions as frames_of
from patchwright.modes.swebench.own_tests import Baseline, related_test_files, split_status
from patchwright.modes.swebench.propose import Reader, repo_files
from patchwright.modes.swebench.reproduce import Reproduction, ask
from patchwright.modes.swebench.sbfl import sbfl
from patchwright.modes.swebench.setup import Prepared
from patchwright.modes.swebench.tests import TestReport, run_tests, with_coverage


def fair_groundwork(
    prepared: Prepared, session: Session, *, limit: int, reproduce: bool, timeout: float,
    bus: EventBus,
) -> Groundwork:  # fmt: skip
    """Suspects and checks from the issue and the repository (see the module docstring)."""
    problem = prepared.instance.problem_statement
    reader = Reader(prepared.repo)
    paths = repo_files(prepared.repo)
    signals = Signals(traceback=issue_frames(problem, paths, reader.text),
                      index=index_signal(session.index, problem))  # fmt: skip
    suspects = fuse(signals, reader.text, limit)
    named = [p for p in paths if p in problem]
    files = related_test_files([s.path for s in suspects] + named, paths, reader.text)
    repro = _write_reproduction(session, problem, suspects, reader, paths) if reproduce else None
    coverage = prepared.home / "sbfl" / ".coverage" if repro is not None else None
    report = _baseline(prepared, files, repro, coverage, timeout, bus)
    passing, failing, reproducing = split_status(report.status, repro.path if repro else None)
    record: dict[str, object] = {"oracle_tests": False, "files": files}
    if repro is not None:
        record["reproduction"] = _judge_reproduction(repro, reproducing, report, bus)
    if reproducing:
        if coverage is not None and coverage.is_file():
            status = {t: "FAILED" for t in reproducing} | {t: "PASSED" for t in passing}
            signals.sbfl = sbfl(coverage, prepared.repo, status, reader.text)
        signals.traceback = _merged(frames_of(report.log, prepared.repo, reader.text),
                                    signals.traceback)  # fmt: skip
        suspects = fuse(signals, reader.text, limit)
    else:
        repro = None
    own = Baseline(tuple(files), prepared.spec.test_command(files) if files else "",
                   tuple(passing), tuple(failing))  # fmt: skip
    command = prepared.spec.test_command([*files, repro.path]) if repro else own.command
    bus.emit(RepoTestsBaseline(command=command, files=files, passing=len(passing),
                               failing=len(failing), reproducing=len(reproducing),
                               seconds=round(report.seconds, 2), problem=report.problem))  # fmt: skip
    record |= {"command": command, "passing": len(passing), "failing": len(failing),
               "problem": report.problem}  # fmt: skip
    checks = OwnTests(prepared.instance.repo, command, tuple(passing), tuple(reproducing), repro)
    failures = failure_excerpt(report.log) if reproducing else ""
    return Groundwork(suspects, checks, signals, failures=failures,
                      agent_test_cmd=own.agent_command(), record=record)  # fmt: skip


def _write_reproduction(
    session: Session, problem: str, suspects: list[Suspect], reader: Reader, paths: list[str]
) -> Reproduction | None:
    repro, reply = ask(session, problem, suspects, reader, paths)
    if repro is None:
        session.bus.emit(ReproductionTest(path="", text=reply, kept=False, tests=[],
                                          reason="the reply holds no test file"))  # fmt: skip
    return repro


def _judge_reproduction(
    repro: Reproduction, reproducing: list[str], report: TestReport, bus: EventBus
) -> dict[str, object]:
    """Keep the reproduction test when some of its tests fail before any change."""
    ran = [t for t in report.status if t.startswith(repro.path)]
    if reproducing:
        reason = f"{len(reproducing)} of its tests fail before any change"
    elif ran:
        reason = "none of its tests fails before any change (or they cannot run)"
    else:
        reason = "it did not run (no outcome of its tests in the log)"
    bus.emit(ReproductionTest(path=repro.path, text=repro.text, kept=bool(reproducing),
                              tests=reproducing, reason=reason))  # fmt: skip
    return {"path": repro.path, "kept": bool(reproducing), "tests": reproducing,
            "reason": reason}  # fmt: skip


def _baseline(
    prepared: Prepared, files: list[str], repro: Reproduction | None, coverage: Path | None,
    timeout: float, bus: EventBus,
) -> TestReport:  # fmt: skip
    """The repository's own tests (and the reproduction test) before any change."""
    bus.emit(BaselineStart())
    files = [*files, *([repro.path] if repro else [])]
    if not files:
        return TestReport("", None, "", problem="no test file of the repository found to run")
    command = prepared.spec.test_command(files)
    staged = repro.staged(prepared.env) if repro else None
    if coverage is not None:
        coverage.parent.mkdir(exist_ok=True)
        report = run_tests(prepared.env, prepared.instance.repo, with_coverage(command, coverage),
                           timeout=timeout, staged=staged)  # fmt: skip
        if report.status or "No module named coverage" not in report.log:
            return report
        prepared.env.notes.append("coverage.py missing in the environment: no SBFL")
        staged = repro.staged(prepared.env) if repro else None
    return run_tests(prepared.env, prepared.instance.repo, command, timeout=timeout,
                     staged=staged)  # fmt: skip


def _merged(*rankings: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    out: dict[tuple[str, str], tuple[str, str, int]] = {}
    for ranking in rankings:
        for path, name, line in ranking:
            out.setdefault((path, name), (path, name, line))
    return list(out.values())
