"""``--oracle-tests``: the groundwork from the instance's hidden tests — what no leaderboard
allows, kept to measure the rest of the pipeline against an oracle. The hidden tests (the
test patch applied only while they run; the model never sees it) run at baseline under
coverage; SBFL over FAIL_TO_PASS, their traceback frames and the index give the suspects;
every trial runs FAIL_TO_PASS and PASS_TO_PASS (:class:`.checks.HiddenTests`). Every output
of such a run is marked ``oracle_tests``."""

from __future__ import annotations

from patchwright.agent.session import Session
from patchwright.envs import test_files_of
from patchwright.events import BaselineStart, EventBus, InstanceBaseline
from patchwright.modes.swebench.checks import Groundwork, HiddenTests, failure_excerpt
from patchwright.modes.swebench.localise import Signals, fuse, index_signal
from patchwright.modes.swebench.localise import traceback_functions as frames_of
from patchwright.modes.swebench.propose import Reader
from patchwright.modes.swebench.sbfl import sbfl
from patchwright.modes.swebench.setup import Prepared
from patchwright.modes.swebench.tests import TestReport, run_instance_tests


def oracle_groundwork(
    prepared: Prepared, session: Session, *, limit: int, timeout: float, bus: EventBus
) -> Groundwork:
    """Suspects and checks from the hidden tests (see the module docstring)."""
    instance = prepared.instance
    baseline = _baseline(prepared, timeout, bus)
    reader = Reader(prepared.repo)
    signals = Signals()
    coverage = prepared.home / "sbfl" / ".coverage"
    if coverage.is_file():
        signals.sbfl = sbfl(coverage, prepared.repo, baseline.status, reader.text)
    signals.traceback = frames_of(baseline.log, prepared.repo, reader.text)
    signals.index = index_signal(session.index, instance.problem_statement)
    grade = baseline.grade(instance)
    record = {
        "oracle_tests": True,
        "command": baseline.command,
        "FAIL_TO_PASS_failing": len(grade.f2p_failed),
        "PASS_TO_PASS_failing": len(grade.p2p_failed),
    }
    return Groundwork(
        suspects=fuse(signals, reader.text, limit),
        checks=HiddenTests(instance, prepared.spec),
        signals=signals,
        failures=failure_excerpt(baseline.log),
        agent_test_cmd=prepared.spec.test_command(test_files_of(instance.test_patch)),
        record=record,
    )


def _baseline(prepared: Prepared, timeout: float, bus: EventBus) -> TestReport:
    """The hidden tests before any change, under coverage where it is installed."""
    coverage = prepared.home / "sbfl" / ".coverage"
    coverage.parent.mkdir(exist_ok=True)
    bus.emit(BaselineStart())
    report = run_instance_tests(prepared.env, prepared.instance, prepared.spec,
                                timeout=timeout, coverage_file=coverage)  # fmt: skip
    if not report.status and "No module named coverage" in report.log:
        prepared.env.notes.append("coverage.py missing in the environment: no SBFL")
        report = run_instance_tests(prepared.env, prepared.instance, prepared.spec,
                                    timeout=timeout)  # fmt: skip
    grade = report.grade(prepared.instance)
    if not grade.f2p_failed:
        prepared.env.notes.append("FAIL_TO_PASS already passes before any change")
    bus.emit(InstanceBaseline(f2p_failing=len(grade.f2p_failed), p2p_failing=len(grade.p2p_failed),
                              seconds=round(report.seconds, 2), problem=report.problem))  # fmt: skip
    return report
