"""What "done" means for a task — decided before the first edit — and whether a change meets it.

The gates ask "did anything get worse?"; the criterion asks "is the task done?". In order:

* the user's test command (``--test-cmd`` or ``[run] test_cmd``) must exit 0, as Aider and
  SWE-agent treat it; per-test outcomes, where the runner gives them, say what still fails,
  and the tests that failed before the change must pass in it — not merely stop running (a
  Rust reply that swapped ``mod tests;`` for a module of its own would unlink the protected
  ``src/tests.rs``, and the command would exit 0);
* otherwise, with a detected runner that reports per-test outcomes, the **targets** — the
  baseline-failing tests related to the task (``related_tests``), plus any failing test whose
  traceback runs through a file the change touches or that ran, at baseline, a function the
  change touches (``coverage_links``) — must pass;
* every ``--done-when`` command must exit 0, in addition to the above.

With none of these the criterion is undefined and a change that passes the gates is
``unverified``, never ``solved``. A command of the criterion that already exits 0 before any
change (``already_met``) still has to hold, but cannot prove the task: a change it alone
judges is ``unverified`` too. Baseline failures that are not targets are reported.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from patchwright.agent.relations.coverage_links import Spans, covered_spans, reaches
from patchwright.agent.relations.related_tests import is_test_path, related_tests, traced_files
from patchwright.agent.relevance import mentioned_files
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline
from patchwright.verify.summary import describe_tests, fails_as_before
from patchwright.verify.testcover import cover_tests
from patchwright.verify.testrun import TestRun
from patchwright.verify.tools import exited, said, tail

RunCommand = Callable[[str], tuple[int | None, str]]  # command -> (exit code, output)
REPORT_CHARS = 2500
SHOWN = 5  # failing tests told in detail; a small model acts on a few, and each costs prefill


@dataclass(frozen=True)
class Criterion:
    """The definition of done for one task (see the module docstring)."""

    test_cmd: str | None = None
    targets: frozenset[str] = frozenset()
    target_files: frozenset[str] = frozenset()  # test files whose every test must pass
    done_when: tuple[str, ...] = ()
    unrelated: tuple[str, ...] = ()
    traced: Mapping[str, frozenset[str]] = field(default_factory=dict)
    covered: Mapping[str, Spans] = field(default_factory=dict)  # test -> what it ran (baseline)
    notes: tuple[str, ...] = ()
    already_met: tuple[str, ...] = ()  # its commands that exit 0 before any change
    coverage_seconds: float = 0.0
    must_pass: frozenset[str] = frozenset()  # with test_cmd: the tests failing before the change

    @property
    def defined(self) -> bool:
        """True when a check is known before the first edit (a change that touches a file
        some failing test runs through may still add targets; see ``targets_for``)."""
        return bool(self.test_cmd or self.targets or self.target_files or self.done_when)

    @property
    def proves(self) -> bool:
        """False when every part of the criterion already held before any change: passing it
        then proves nothing (a failing test a change touches may still prove it)."""
        commands = [c for c in (self.test_cmd, *self.done_when) if c]
        fresh = any(c not in self.already_met for c in commands)
        return bool(self.targets or self.target_files) or fresh

    def holding(self, commands: Sequence[str]) -> Criterion:
        """This criterion, told which of its commands already exit 0 before any change."""
        held = tuple(c for c in dict.fromkeys(commands) if c not in self.already_met)
        if not held:
            return self
        notes = [f"`{c}` already exits 0 before any change, so it cannot prove the task"
                 for c in held]  # fmt: skip
        return replace(self, already_met=(*self.already_met, *held),
                       notes=(*self.notes, *notes))  # fmt: skip

    def _shown(self, cmd: str) -> str:
        return f"`{cmd}` exits 0" + (" (already before any change)" * (cmd in self.already_met))

    def targets_for(
        self, touched: Collection[str], changed: Mapping[str, Collection[int]] | None = None
    ) -> frozenset[str]:
        """The targets plus failing tests whose traceback runs through a touched file or that
        ran code the change touches (``changed``: baseline lines changed, by path; without
        it a touched file they ran counts)."""
        if self.test_cmd:
            return frozenset()
        through = {t for t, files in self.traced.items() if files & set(touched)}
        ran = {t for t, spans in self.covered.items() if reaches(spans, touched, changed)}
        return self.targets | through | ran

    def describe(self) -> str:
        parts: list[str] = []
        if self.test_cmd:
            parts.append(self._shown(self.test_cmd))
        elif self.targets:
            names = ", ".join(sorted(self.targets)[:5])
            more = f" and {len(self.targets) - 5} more" if len(self.targets) > 5 else ""
            parts.append(f"the failing test(s) of the task pass: {names}{more}")
        elif self.target_files:
            parts.append(f"every test in {', '.join(sorted(self.target_files))} passes")
        parts.extend(self._shown(cmd) for cmd in self.done_when)
        if not parts and self.covered:
            return (
                f"none yet: a change to code that {len(self.covered)} failing test(s) run "
                "makes them the task's tests, which must then pass"
            )
        if not parts:
            return "none: nothing can prove this task done, so a change will be unverified"
        if not self.proves:
            parts.append("none of it can prove the task, so a change will be unverified")
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "defined": self.defined,
            "description": self.describe(),
            "test_cmd": self.test_cmd,
            "targets": sorted(self.targets),
            "target_files": sorted(self.target_files),
            "done_when": list(self.done_when),
            "already_met": list(self.already_met),
            "proves": self.proves,
            "unrelated_failures": list(self.unrelated),
            "covered_tests": sorted(self.covered),
            "coverage_seconds": round(self.coverage_seconds, 3),
            "must_pass": sorted(self.must_pass),
            "notes": list(self.notes),
        }


@dataclass
class Verdict:
    """Whether a change meets the criterion; ``report`` is what the model needs to repair.
    ``proved``: met, and by a part that did not already hold before the change."""

    met: bool
    remaining: list[str] = field(default_factory=list)
    report: str = ""
    proved: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"met": self.met, "remaining": self.remaining, "proved": self.proved}


def decide(
    baseline: Baseline,
    task: str,
    texts: Mapping[str, str],
    *,
    user_test_cmd: str | None,
    done_when: Sequence[str] = (),
) -> Criterion:
    """The criterion for ``task`` from the baseline (taken before any edit)."""
    run = baseline.tests
    failing = sorted(run.failing) if run else []
    if user_test_cmd:
        green = run is not None and run.exit_code == 0 and run.problem is None
        known = run is not None and run.per_test and run.problem is None
        criterion = Criterion(test_cmd=user_test_cmd, done_when=tuple(done_when),
                              must_pass=frozenset(failing) if known else frozenset())  # fmt: skip
        return criterion.holding([user_test_cmd] if green else [])
    if run is None or not run.per_test or run.problem:
        named = _named_test_files(task, texts) if run is not None else frozenset()
        why = "" if named else _no_targets_reason(run)
        return Criterion(
            target_files=named, done_when=tuple(done_when), notes=(why,) if why else ()
        )
    targets = related_tests(run, task, texts)
    unrelated = tuple(t for t in failing if t not in targets)
    traced = {t: f for t, f in traced_files(run, texts).items() if t not in targets}
    notes: list[str] = []
    if unrelated:
        notes.append(
            f"{len(unrelated)} test(s) already failing are not about this task and are not "
            "required (unless the change touches code they run through): "
            + ", ".join(unrelated[:5])
            + (" ..." if len(unrelated) > 5 else "")
        )
    return Criterion(
        targets=frozenset(targets),
        done_when=tuple(done_when),
        unrelated=unrelated,
        traced=traced,
        notes=tuple(notes),
    )


def link_by_coverage(
    criterion: Criterion, baseline: Baseline, sandbox: Sandbox, *, timeout: float = 600.0
) -> Criterion:
    """``criterion`` with the spans that its unrelated failing tests run (see the module
    docstring); unchanged, with a note when they could not be measured. The run may take at
    most twice the baseline's time (and at least a minute): a few tests, measured once."""
    if criterion.test_cmd or not criterion.unrelated:
        return criterion
    limit = min(timeout, max(60.0, 2 * baseline.seconds))
    lines = cover_tests(
        baseline.root, sandbox, baseline.test_cmd, criterion.unrelated, timeout=limit
    )
    wanted = set(criterion.unrelated)
    covered = {
        test: spans
        for test, ran in lines.tests.items()
        if test in wanted and (spans := covered_spans(ran, lines.shared, baseline.texts))
    }
    note = lines.note
    if not note and lines.tests and not wanted & set(lines.tests):
        note = "no line coverage: the coverage run named none of the failing tests by their ids"
    notes = (*criterion.notes, note) if note else criterion.notes
    return replace(criterion, covered=covered, notes=notes, coverage_seconds=lines.seconds)


def _named_test_files(task: str, texts: Mapping[str, str]) -> frozenset[str]:
    """Test files the task names: the check when the baseline run could not say per test."""
    return frozenset(p for p in mentioned_files(task, sorted(texts)) if is_test_path(p))


def _no_targets_reason(run: TestRun | None) -> str:
    if run is None:
        return "no test runner found; pass --test-cmd or --done-when to say what done means"
    if run.missing_tool:
        return f"the tests could not run ({run.missing_tool})"
    if run.problem:
        return f"the test run is broken before any change ({run.problem})"
    if run.green:
        return ""
    return (
        f"`{run.command}` fails before any change and gives no per-test outcomes, so no "
        "failing test can be tied to the task; pass --test-cmd to require it"
    )


def evaluate(
    criterion: Criterion,
    run: TestRun | None,
    touched: Collection[str],
    run_command: RunCommand,
    changed: Mapping[str, Collection[int]] | None = None,
    before: TestRun | None = None,
) -> Verdict | None:
    """Judge a written change: the test run the tests gate made, and the done-when commands
    (``changed``: the baseline lines it changes, by path; ``before``: the baseline's run, to
    say when tests fail exactly as they did before). None when no check applies to this
    change (the outcome can only be unverified)."""
    verdicts: list[Verdict] = []
    if criterion.test_cmd:
        verdicts.append(_test_command(criterion.test_cmd, run, criterion.must_pass, before))
    else:
        targets = criterion.targets_for(touched, changed)
        if targets:
            verdicts.append(_targets(targets, run, before))
        if criterion.target_files:
            verdicts.append(_target_files(criterion.target_files, run, before))
    for cmd in criterion.done_when:
        code, output = run_command(cmd)
        ok = code == 0
        report = "" if ok else f"`{cmd}` {exited(cmd, code)}:\n{tail(output, 30, 1500)}"
        verdicts.append(Verdict(ok, [] if ok else [cmd], report))
    if not verdicts:
        return None
    met = all(v.met for v in verdicts)
    # one verdict per part: test command, targets, target files, each done-when command
    held = [c for c in (criterion.test_cmd, *criterion.done_when) if c in criterion.already_met]
    return Verdict(
        met,
        [r for v in verdicts for r in v.remaining],
        "\n\n".join(v.report for v in verdicts if v.report)[:REPORT_CHARS],
        proved=met and len(verdicts) > len(held),
    )


def _still_failing(what: str, run: TestRun, before: TestRun | None, ids: Sequence[str]) -> str:
    """The report of tests that still fail, saying so when they fail exactly as before the
    change: it made no difference to them (40 of the 68 repair prompts in the benchmarks'
    records of 2026-11-26 showed such a failure, told like any other)."""
    same = fails_as_before(run, before, ids)
    return (f"{what}{', exactly as before the change (same error, same values)' if same else ''}"
            f":\n{describe_tests(run, ids, SHOWN)}")  # fmt: skip


LONG_COMMAND = 80  # characters: a longer test command is named once, in "Done means"


def _named(cmd: str) -> str:
    """How a report names the test command: itself, or — a long one (a polyglot task's is a
    290-character script), which the repair prompt's "Done means" line already quotes —
    "the test command"."""
    return f"`{cmd}`" if len(cmd) <= LONG_COMMAND else "the test command"


def _test_command(
    command: str, run: TestRun | None, must_pass: frozenset[str], before: TestRun | None
) -> Verdict:
    cmd = _named(command)
    if run is None:
        return Verdict(False, [command], f"{cmd} did not run")
    if run.problem is None and run.exit_code == 0:
        gone = sorted(t for t in must_pass if not passed(t, run)) if run.per_test else []
        if gone:
            return Verdict(False, gone, (
                f"{cmd} exits 0, but these tests, which failed before the change, did not pass "
                f"in it (they no longer ran, or were skipped): {', '.join(gone[:SHOWN])}. Make "
                "them pass; do not stop them from running."))  # fmt: skip
        return Verdict(True)
    failing = sorted(run.failing)
    if failing:
        return Verdict(False, failing, _still_failing(f"{cmd} still fails", run, before, failing))
    what = run.problem or run.missing_tool or exited(command, run.exit_code)
    return Verdict(False, [command], f"{cmd} {what}:\n{tail(said(run.output), 30, 2000)}")


def passed(test_id: str, run: TestRun) -> bool:
    """Whether ``test_id`` passed in ``run`` — or, for what failed as a whole (pytest's
    collection error of a test module: HumanEvalFix calls its check at import; a Go package
    or Rust crate that did not build, ``folder::[build]``), whether tests under it ran and
    none failed."""
    if test_id in run.passing:
        return True
    folder, _, what = test_id.partition("::")
    if what in ("[build]", "[package]"):
        prefix = "" if folder == "." else folder.rstrip("/") + "/"
        under = [c.outcome for c in run.cases.values() if c.path.startswith(prefix)]
    else:
        under = [c.outcome for i, c in run.cases.items() if i.startswith(test_id + "::")]
    return "passed" in under and not {"failed", "error"} & set(under)


def _targets(targets: frozenset[str], run: TestRun | None, before: TestRun | None) -> Verdict:
    ids = sorted(targets)
    if run is None or run.problem or not run.per_test:
        why = "did not run" if run is None else (run.problem or "gave no per-test outcomes")
        return Verdict(False, ids, f"the tests {why}, so the task's tests could not be checked")
    remaining = [t for t in ids if not passed(t, run)]
    if not remaining:
        return Verdict(True)
    failing = [t for t in remaining if t in run.cases]
    gone = [t for t in remaining if t not in run.cases]
    report = _still_failing("The task's tests still fail", run, before, failing) if failing else ""
    if gone:
        report += "\nThese tests of the task no longer ran: " + ", ".join(gone)
    return Verdict(False, remaining, report.strip())


def _target_files(files: frozenset[str], run: TestRun | None, before: TestRun | None) -> Verdict:
    names = ", ".join(sorted(files))
    if run is None or run.problem or not run.per_test:
        why = "did not run" if run is None else (run.problem or "gave no per-test outcomes")
        return Verdict(False, sorted(files), f"the tests {why}, so {names} could not be checked")
    cases = [c for c in run.cases.values() if c.path in files]
    failing = sorted(c.id for c in cases if c.outcome in ("failed", "error"))
    if cases and not failing:
        return Verdict(True)
    if not cases:
        return Verdict(False, sorted(files), f"no test of {names} ran")
    return Verdict(
        False, failing, _still_failing("The task's tests still fail", run, before, failing)
    )


def baseline_report(criterion: Criterion, baseline: Baseline, done_when_output: str = "") -> str:
    """What "done" looks like before the first edit: the failures the change must fix."""
    run = baseline.tests
    parts: list[str] = []
    if run is not None and criterion.test_cmd and not (run.exit_code == 0 and not run.problem):
        failing = sorted(run.failing)
        parts.append(describe_tests(run, failing, SHOWN) if failing else baseline.failure_output)
    elif run is not None and criterion.targets:
        parts.append(describe_tests(run, sorted(criterion.targets), SHOWN))
    if done_when_output:
        parts.append(done_when_output)
    return "\n\n".join(p for p in parts if p.strip())[-3000:]
