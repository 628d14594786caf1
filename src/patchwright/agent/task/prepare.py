"""What every strategy needs before the first model call (``Groundwork``): the baseline, the
definition of done (shown to the user), what it looks like failing, the read-only tests and
the gates — after making sure the criterion's commands can start here (:mod:`.preflight`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from patchwright.agent.checker import GateChecker
from patchwright.agent.criterion import (
    SHOWN,
    Criterion,
    baseline_report,
    decide,
    link_by_coverage,
)
from patchwright.agent.lang_slips import slip_notes
from patchwright.agent.pointed_lines import where_in_code, where_in_tests
from patchwright.agent.relations.related_tests import is_test_path
from patchwright.agent.relevance import mentioned_files
from patchwright.agent.request import TaskRequest
from patchwright.agent.session import Session
from patchwright.agent.task.preflight import (
    done_when_report,
    held,
    probe_done_when,
    require_test_cmd_starts,
)
from patchwright.agent.task.repo import TaskRepo
from patchwright.agent.value_origin import where_written
from patchwright.events import BaselineDone, BaselineStart, CriterionDecided
from patchwright.verify import Baseline, take_baseline
from patchwright.verify.testmodel import TestCase, TestRun

_CHANGE_TESTS = re.compile(
    r"\b(?:update|change|rewrite|edit|add|write)\s+(?:the\s+|a\s+|new\s+)?"
    r"(?:unit\s+)?(?:tests?|specs?)\b(?![/.\w])",
    re.IGNORECASE,
)


@dataclass
class Groundwork:
    baseline: Baseline
    texts: dict[str, str]  # the repository's readable text files
    criterion: Criterion
    failures: str  # how the criterion fails before any change
    protected: list[str]  # read-only test files
    checker: GateChecker

    @property
    def done(self) -> str:
        return self.criterion.describe() if self.criterion.defined else ""

    @property
    def test_files(self) -> list[str]:
        """The files of the failing tests the change must make pass — those the failure
        report shows first — including a Rust file that holds its own tests."""
        cases = self.baseline.tests.cases if self.baseline.tests else {}
        files = [cases[t].path for t in required_tests(self.baseline, self.criterion)[:SHOWN]]
        return [f for f in dict.fromkeys(files) if f]


def prepare(session: Session, repo: TaskRepo, request: TaskRequest) -> Groundwork:
    bus, timeout = session.bus, request.limits.test_timeout
    session.model.warm_up()  # the embedded model loads while the tests run
    bus.emit(BaselineStart())
    baseline = take_baseline(
        repo.root, session.sandbox, test_cmd=repo.test_cmd, test_timeout=timeout
    )
    require_test_cmd_starts(baseline, given=bool(request.test_cmd))
    texts = session.read_texts()
    criterion = decide(baseline, request.task, texts, user_test_cmd=request.test_cmd,
                       done_when=request.done_when)  # fmt: skip
    criterion = link_by_coverage(criterion, baseline, session.sandbox, timeout=timeout)
    probes = probe_done_when(session, request.done_when)
    criterion = criterion.holding(held(probes))
    bus.emit(BaselineDone(failing=len(baseline.failing_tests)))
    bus.emit(CriterionDecided(**criterion.to_json()))
    failures = baseline_report(criterion, baseline, done_when_report(probes))
    checker = GateChecker(repo.root, session.sandbox, baseline, bus, criterion, repo.test_cmd,
                          timeout, session.command_timeout)  # fmt: skip
    protected = protected_tests(baseline, criterion, request.task, sorted(texts))
    tests = {p: texts.get(p) for p in protected}
    code = {p: t for p, t in texts.items() if p not in protected and not is_test_path(p)}
    told = (failures, where_in_tests(failures, tests), where_in_code(failures, code),
            where_written(failures, code, tests), *slip_notes(failures, code))  # fmt: skip
    failures = "\n".join(x for x in told if x)
    return Groundwork(baseline, texts, criterion, failures, protected, checker)


def required_tests(baseline: Baseline, criterion: Criterion) -> list[str]:
    """The failing tests the change must make pass, in order: all that fail when the user's
    test command decides, else the criterion's targets (those the baseline ran)."""
    cases = baseline.tests.cases if baseline.tests else {}
    required = baseline.failing_tests if criterion.test_cmd else criterion.targets
    return sorted(t for t in required if t in cases)


UNBUILT_TESTS = 20  # at most this many test files of a folder made read-only as a whole


def _unbuilt_tests(case: TestCase, paths: Sequence[str]) -> set[str]:
    """The tests of a suite that does not build, which names no test's file: the test files
    its errors name, and those of its folder (``case.path``) when they are few. Polyglot Rust
    accumulate's stubs did not compile (``_function: ???``), so no test file was read-only
    and 3 of 4 replies rewrote the tests to fit the signature they chose."""
    folder = "" if case.path.strip("/") in ("", ".") else case.path.strip("/")
    return _suite_tests(f"{case.message}\n{case.detail}", folder, paths)


def _untold_tests(run: TestRun | None, paths: Sequence[str]) -> set[str]:
    """The tests of a test command that fails and names no test (a bare ``npm test`` running
    ``node test/check.js``): the test files its output names, and all the repository's when
    they are few. Without them a reply that rewrote the check to pass would count as solved."""
    if run is None or run.cases or not run.exit_code:
        return set()
    return _suite_tests(run.output, "", paths)


def _suite_tests(said: str, folder: str, paths: Sequence[str]) -> set[str]:
    """Test files that ``said`` names, and those under ``folder`` ("" for all) if at most
    ``UNBUILT_TESTS``."""
    named = {p for p in mentioned_files(said, paths) if is_test_path(p)}
    under = {p for p in paths if is_test_path(p) and (not folder or p.startswith(f"{folder}/"))}
    return named | (under if len(under) <= UNBUILT_TESTS else set())


def protected_tests(
    baseline: Baseline, criterion: Criterion, task: str, paths: Sequence[str] = ()
) -> list[str]:
    """Files of the tests the criterion requires, test files the task names, and files the
    criterion's commands name: read-only unless the task asks to change tests (a model must
    not make a check pass by rewriting the check). A test that lives in the code's own file
    (a Rust ``#[cfg(test)]`` module or doc test: ``TestCase.inline``) leaves that file
    writable — it holds the code to fix."""
    if _CHANGE_TESTS.search(task):
        return []
    cases = baseline.tests.cases if baseline.tests else {}
    required = required_tests(baseline, criterion)
    files = {cases[t].path for t in required if cases[t].path and not cases[t].inline}
    for t in required:
        if cases[t].path not in paths:  # a build failure, of a folder (or of the root: "")
            files.update(_unbuilt_tests(cases[t], paths))
    if criterion.test_cmd:  # the whole suite must pass: with no test named, all of it is read-only
        files.update(_untold_tests(baseline.tests, paths))
    files.update(p for p in mentioned_files(task, paths) if is_test_path(p))
    commands = " ".join(c for c in (criterion.test_cmd, *criterion.done_when) if c)
    files.update(mentioned_files(commands, paths))
    return sorted(files)
