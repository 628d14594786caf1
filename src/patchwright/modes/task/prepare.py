"""What every strategy needs before the first model call: the baseline, the definition of
done (shown to the user), what it looks like failing, the read-only tests, the gates and the
approval path — after making sure the criterion's commands can start here (``preflight``)
(``Prepared``); and what a strategy hands back once wired (``Ready``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.console import Console

from patchwright.agent.checker import GateChecker
from patchwright.agent.criterion import Criterion, baseline_report, decide, link_by_coverage
from patchwright.agent.related_tests import is_test_path
from patchwright.agent.relevance import mentioned_files
from patchwright.agent.session import Session
from patchwright.agent.solve_types import Approver, SolveResult
from patchwright.modes.task.approval import make_approver
from patchwright.modes.task.options import RunOptions
from patchwright.modes.task.preflight import (
    done_when_report,
    held,
    probe_done_when,
    require_test_cmd_starts,
)
from patchwright.modes.task.setup import Workspace
from patchwright.verify import Baseline, take_baseline

_CHANGE_TESTS = re.compile(
    r"\b(?:update|change|rewrite|edit|add|write)\s+(?:the\s+|a\s+|new\s+)?"
    r"(?:unit\s+)?(?:tests?|specs?)\b(?![/.\w])",
    re.IGNORECASE,
)


@dataclass
class Prepared:
    baseline: Baseline
    texts: dict[str, str]
    criterion: Criterion
    failures: str  # how the criterion fails before any change
    protected: list[str]  # read-only test files
    checker: GateChecker
    approver: Callable[[Callable[[], list[str]]], Approver]  # given the changed paths

    @property
    def done(self) -> str:
        return self.criterion.describe() if self.criterion.defined else ""


@dataclass
class Ready:
    """A strategy made ready: how to solve, and what the run reports up front."""

    solve: Callable[[], SolveResult]
    strategy: str
    fmt: str = ""
    candidates: int = 1


def prepare(session: Session, ws: Workspace, opts: RunOptions, console: Console) -> Prepared:
    bus = session.bus
    bus.emit("baseline.start")
    baseline = take_baseline(
        ws.root, session.sandbox, test_cmd=ws.test_cmd, test_timeout=opts.test_timeout
    )
    require_test_cmd_starts(baseline, given=bool(opts.test_cmd))
    texts = session.read_texts()
    criterion = decide(
        baseline, opts.task, texts, user_test_cmd=opts.test_cmd, done_when=opts.done_when
    )
    criterion = link_by_coverage(criterion, baseline, session.sandbox, timeout=opts.test_timeout)
    probes = probe_done_when(session, opts.done_when)
    criterion = criterion.holding(held(probes))
    bus.emit("baseline.done", failing=len(baseline.failing_tests))
    bus.emit("criterion.decided", **criterion.to_json())
    failures = baseline_report(criterion, baseline, done_when_report(probes))
    checker = GateChecker(
        ws.root,
        session.sandbox,
        baseline,
        bus,
        criterion,
        ws.test_cmd,
        opts.test_timeout,
        session.command_timeout,
    )

    def approver(paths: Callable[[], list[str]]) -> Approver:
        return make_approver(
            console, yes=opts.yes, timeout=opts.approve_timeout, root=ws.root, paths=paths
        )

    protected = protected_tests(baseline, criterion, opts.task, sorted(texts))
    return Prepared(baseline, texts, criterion, failures, protected, checker, approver)


def protected_tests(
    baseline: Baseline, criterion: Criterion, task: str, paths: Sequence[str] = ()
) -> list[str]:
    """Files of the tests the criterion requires, test files the task names, and files the
    criterion's commands name: read-only unless the task asks to change tests (a model must
    not make a check pass by rewriting the check)."""
    if _CHANGE_TESTS.search(task):
        return []
    cases = baseline.tests.cases if baseline.tests else {}
    required = baseline.failing_tests if criterion.test_cmd else criterion.targets
    files = {cases[t].path for t in required if t in cases and cases[t].path}
    files.update(p for p in mentioned_files(task, paths) if is_test_path(p))
    commands = " ".join(c for c in (criterion.test_cmd, *criterion.done_when) if c)
    files.update(mentioned_files(commands, paths))
    return sorted(files)
