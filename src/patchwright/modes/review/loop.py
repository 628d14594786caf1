"""``patchwright review``: the autonomous review-and-improve loop (PyOB's, on patchwright's parts).

Bootstrap: the code index, ANALYSIS.md and SYMBOLS.json, a baseline (tests, smoke run) and
the static findings. Then each iteration: while the tools can fix findings safely, fix them
with no model — every file in one transaction through the same gates, checkpoint and commit
(:mod:`.toolstep`); otherwise pick a target (the cascade queue first, else by findings,
centrality and history), have the files shown with it that say nothing of themselves
summarised, ask for a proposal (a bug fix; a feature with ``--focus features`` or when
nothing is wrong), verify and heal it, wait at the checkpoint, commit it, queue the files
its ripples reach, record HISTORY.md, and re-synthesise MEMORY.md. A stop (Ctrl-C, SIGTERM)
ends the loop between steps with the repository at its last accepted commit and the memory
files written.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Console

from patchwright import events as ev
from patchwright import interrupts
from patchwright.agent.checker import GatesCouldNotRun
from patchwright.agent.memory import read_memory
from patchwright.agent.record import RunRecord
from patchwright.agent.request import RunError
from patchwright.agent.session import Session
from patchwright.agent.task.repo import open_repo
from patchwright.events import (
    Event,
    ModelReply,
    ReviewCascade,
    ReviewEnd,
    ReviewFindings,
    ReviewIteration,
    ReviewPhase,
    ReviewProposal,
    ReviewStart,
    ReviewTarget,
    ReviewUsage,
)
from patchwright.index import RepoIndex
from patchwright.llm import CapExceeded, redact
from patchwright.llm.ledger import Totals
from patchwright.modes.review.analysis import Analysis
from patchwright.modes.review.autofix import ToolFixer
from patchwright.modes.review.checkpoint import CheckpointDesk, Proposal
from patchwright.modes.review.contracts import Contracts
from patchwright.modes.review.files import ReviewPaths, pending_entry
from patchwright.modes.review.files import sha as _sha
from patchwright.modes.review.findings import Findings, scan
from patchwright.modes.review.focus import focus
from patchwright.modes.review.memory import ReviewMemory
from patchwright.modes.review.options import (
    Focus,
    ReviewOptions,
    ReviewOutcome,
    ReviewSummary,
    review_request,
)
from patchwright.modes.review.propose import Kind, ProposalOutcome, Proposer, TargetContext
from patchwright.modes.review.selfguard import SelfGuard, prepare
from patchwright.modes.review.settle import Settler, cascade_items, iteration_notes, pending_name
from patchwright.modes.review.targeting import CascadeItem, History, Target, candidates, choose
from patchwright.modes.review.targeting import dependents as find_dependents
from patchwright.modes.review.toolstep import ToolStep, batch_target
from patchwright.verify import Baseline, TestRun, take_baseline
from patchwright.verify.baseline import snapshot_texts
from patchwright.verify.smoke import run_smoke

__all__ = ["Focus", "ReviewLoop", "ReviewOptions", "ReviewOutcome", "ReviewSummary",
           "review_request", "run_review"]  # fmt: skip

HISTORY_CACHE = "targets.json"
TOOLFIX_CACHE = "toolfixes.json"


class ReviewLoop:
    """One review run over one repository (see the module docstring)."""

    def __init__(self, opts: ReviewOptions, session: Session, console: Console,
                 desk: CheckpointDesk, *, interactive: bool | None = None,
                 on_token: Callable[[str], None] | None = None) -> None:  # fmt: skip
        self.opts, self.session, self.bus = opts, session, session.bus
        session.recover()
        self.request = review_request(opts, session.settings)
        self.repo = repo = open_repo(session, self.request)
        self.paths = ReviewPaths.for_repo(repo.root, in_repo=opts.memory_in_repo)
        self.memory = ReviewMemory(self.paths, session.model, self.bus)
        self.analysis = Analysis(self.paths, session.model, self.bus, opts.analysis_calls)
        self.history = History(self.paths.load_cache(HISTORY_CACHE).get("files", {}))
        self.settler = Settler(repo, session.model, self.paths, self.memory, self.bus,
                               self.request.git.commit)  # fmt: skip
        self.queue: list[CascadeItem] = []
        self.summary = ReviewSummary.starting(str(self.paths.dir), session.settings)
        self.proposer = Proposer(session, repo, self.request, console, desk, opts.checkpoint,
                                 opts.tuning, self._dependents, self._write_pending,
                                 interactive, on_token=on_token,
                                 before_task=self._new_ledger)  # fmt: skip
        declined = self.paths.load_cache(TOOLFIX_CACHE).get("declined", {})
        self.fixer = ToolFixer(repo.root, session.sandbox, dict(declined))
        self.tools = ToolStep(repo, self.proposer, self.settler, self.fixer, self.bus,
                              self._report, self.summary.notes)  # fmt: skip
        self.baseline: Baseline | None = None
        self.console, self.guard = console, SelfGuard()
        self.findings = Findings()
        self.iteration = 0
        self._spent = Totals()

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> ReviewSummary:
        started = time.monotonic()
        record = RunRecord(self.repo.root, redact=redact)
        self.summary.run_id = record.run_id
        self.proposer.record = record
        stop_listening = [self.bus.subscribe(record.on_event), self.bus.subscribe(self._on_usage)]
        self.bus.emit(ReviewStart(run_id=record.run_id, model=self.session.model.name,
                                  focus=self.opts.focus, iterations=self.opts.iterations,
                                  targets=self.opts.targets, memory_dir=str(self.paths.dir)))  # fmt: skip
        try:
            self._bootstrap()
            self._loop()
        except KeyboardInterrupt as stop:
            self.summary.outcome = "interrupted"
            by = f"stopped by {stop.args[0]}" if stop.args else "interrupted by the user"
            self.summary.reason = f"{by}; the repository is at its last accepted commit"
            self.memory.note([f"iteration {self.iteration}: {by} before it finished"])
        except CapExceeded as exc:
            self.summary.outcome, self.summary.reason = "stopped", f"{exc.cap} cap reached: {exc}"
        except RunError:
            raise
        except GatesCouldNotRun as exc:  # its message says what to do
            self.summary.outcome, self.summary.reason = "error", f"GatesCouldNotRun: {exc}"
        except Exception as exc:  # a crash still leaves a record and a clean repository
            self.summary.outcome, self.summary.reason = "error", record.crash_reason(exc)
        finally:
            self.settler.clear_pending()
            self.summary.usage = self._totals()
            self.summary.seconds = time.monotonic() - started
            self.summary.queue = [item.path for item in self.queue]
            summary = self.summary.to_json()
            event = {k: v for k, v in summary.items() if k != "edit_formats"}  # not the event's
            self.bus.emit(ReviewEnd(**event))
            record.write_summary(summary)
            for stop_listening_to in stop_listening:
                stop_listening_to()
        return self.summary

    def _loop(self) -> None:
        limit = self.opts.iterations
        while not limit or self.iteration < limit:
            interrupts.check()
            if self.iteration and self.opts.cooldown > 0:
                self._phase("cooldown", seconds=self.opts.cooldown)
                time.sleep(self.opts.cooldown)
            self.iteration += 1
            self.summary.iterations = self.iteration
            if not self._step():
                self.summary.outcome = "done"
                self.summary.reason = "every file was reviewed at its current content"
                return
        self.summary.reason = f"{limit} iteration(s) done"

    def _phase(self, phase: str, *, seconds: float | None = None, target: str | None = None,
               proposal: str | None = None, files: list[str] | None = None) -> None:  # fmt: skip
        self.bus.emit(ReviewPhase(phase=phase, iteration=self.iteration, seconds=seconds,
                                  target=target, proposal=proposal, files=files))  # fmt: skip

    # -- bootstrap and refresh --------------------------------------------------------------
    def _index(self) -> RepoIndex:
        index = self.session.index
        if index is None:
            raise RunError("the code index could not be built (see the run record); "
                           "run `patchwright index` to see why")  # fmt: skip
        return index

    def _files(self, index: RepoIndex) -> list[str]:
        return candidates(index.symbols, self.opts.targets, self.paths.relative_names)

    def _bootstrap(self) -> None:
        self._phase("bootstrap")
        index = self._index()
        files = self._files(index)
        if not files:
            where = f" under {', '.join(self.opts.targets)}" if self.opts.targets else ""
            raise RunError(f"nothing to review: no code files{where} (tests are reviewed only "
                           "when --target names them)")  # fmt: skip
        root, sandbox = self.repo.root, self.session.sandbox
        self.guard = prepare(root, sandbox, test_cmd_given=bool(self.opts.test_cmd))
        texts = self.session.read_texts()
        self.analysis.refresh(index, texts, files)
        self._rebaseline(texts, files)
        self.proposer.contracts = Contracts.of(root, sandbox)
        contracts = self.proposer.contracts.note if self.proposer.contracts else ""
        for note in filter(None, [self.guard.describe(), contracts]):
            self.summary.notes.append(note)
            self.console.print(f"[yellow]note:[/] {note}")

    def _rebaseline(
        self, texts: dict[str, str], files: Sequence[str], tests: TestRun | None = None
    ) -> None:
        """A new baseline (the tree changed) and its findings. ``tests``: the suite's run on
        this very tree (the kept change's check), reused instead of running it again."""
        self._phase("baseline")
        root, sandbox, tuning = self.repo.root, self.session.sandbox, self.opts.tuning
        if tests is None:
            self.baseline = take_baseline(root, sandbox, test_cmd=self.repo.test_cmd,
                                          smoke_seconds=tuning.smoke_seconds,
                                          test_timeout=self.request.limits.test_timeout)  # fmt: skip
        else:
            kept, all_paths = snapshot_texts(root)
            smoke = run_smoke(root, sandbox, tuning.smoke_seconds) if tuning.smoke_seconds else None
            cmd = self.baseline.test_cmd if self.baseline else self.repo.test_cmd
            self.baseline = Baseline(root, kept, all_paths, tests, cmd, smoke)
        self.findings = scan(
            self.repo.root, self.session.sandbox, self.baseline, texts, files, self._index().symbols
        )
        if tests is not None and self.proposer.contracts and self.proposer.contracts.broken:
            self.proposer.contracts.refresh()  # a kept change may have mended one
        tests = self.baseline.tests
        self.bus.emit(ReviewFindings(total=self.findings.total,
                                     files={p: len(f) for p, f in self.findings.by_file.items()},
                                     failing_tests=len(tests.failing) if tests else 0,
                                     notes=self.findings.notes))  # fmt: skip

    def _dependents(self, touched: Sequence[str]) -> list[str]:
        return find_dependents(self._index().symbols, touched)

    # -- one iteration ---------------------------------------------------------------------
    def _unsettled(self, ranked: list[Target], shas: dict[str, str]) -> Target | None:
        """The best-ranked target with something left to find (a cascade item always has)."""
        for target in ranked:
            problems = any(f.source != "lazy" for f in self.findings.of(target.path))
            if target.cascade is not None or not self.history.settled(
                target.path, shas[target.path], problems=problems
            ):
                return target
        return None

    def _step(self) -> bool:
        """One iteration; False when there is nothing left to review."""
        self._new_ledger()
        self.bus.emit(ReviewIteration(iteration=self.iteration, limit=self.opts.iterations))
        index = self._index()
        texts = self.session.read_texts()
        files = self._files(index)
        if self._fix_by_tools(texts, files):
            return True
        self._phase("targeting")
        shas = {p: _sha(texts.get(p, "")) for p in files}
        target, others = choose(files, symbols=index.symbols, findings=self.findings,
                                history=self.history, shas=shas, iteration=self.iteration,
                                queue=self.queue)  # fmt: skip
        target = self._unsettled([target, *others] if target else [], shas)
        if target is None:
            return False
        self.bus.emit(ReviewTarget(**target.to_json(), iteration=self.iteration,
                                   runners_up=[t.to_json() for t in others if t is not target],
                                   queue=[i.path for i in self.queue]))  # fmt: skip
        outcome = self._propose(target, texts, index)
        self._settle(outcome, texts, files, index)
        self.history.note(target.path, self.iteration, outcome.status,
                          _sha(self.session.read_texts().get(target.path, "")))  # fmt: skip
        self.paths.save_cache(HISTORY_CACHE, {"files": self.history.files})
        self._phase("memory")
        self.memory.update(
            self.iteration, iteration_notes(self.iteration, target, outcome, self.queue)
        )
        return True

    def _fix_by_tools(self, texts: dict[str, str], files: list[str]) -> bool:
        """The tools' fixes first, with no model (see :mod:`.toolstep`); False when there are
        none (or ``--focus features``)."""
        if self.opts.focus == "features" or self.baseline is None:
            return False
        self._phase("tool-fixes")
        fixes = self.fixer.plan(self.baseline, files, texts, skip=self.repo.dirty)
        if not fixes:
            return False
        target = batch_target(fixes)
        self.bus.emit(ReviewTarget(path=target, score=None, cascade=False,
                                   reasons=["tool-fixable: " + f.describe() for f in fixes[:8]],
                                   iteration=self.iteration, runners_up=[],
                                   queue=[i.path for i in self.queue]))  # fmt: skip
        self._phase("proposing", target=target, proposal="lint", files=[f.path for f in fixes])
        outcomes = self.tools.run(fixes, self.baseline, self.iteration)
        self.paths.save_cache(TOOLFIX_CACHE, {"declined": self.fixer.declined})
        kept = [o for o in outcomes if o.status == "accepted"]
        if kept:
            after, index = self.session.read_texts(), self._index()
            files = self._files(index)
            self.analysis.refresh(index, after, files)
            self._rebaseline(after, files, kept[-1].test_run)
        self._phase("memory")
        self.memory.note([
            f"iteration {self.iteration}: tool fixes (no model) of {', '.join(o.files or [o.target])}: "
            f"{o.status}" + (f", commit {o.commit[:12]}" if o.commit else "")
            for o in outcomes
        ])  # fmt: skip
        return True

    def _report(self, outcome: ProposalOutcome) -> None:
        self.summary.proposals.append(outcome)
        data = outcome.to_json()
        data["proposal"] = data.pop("kind")  # an event's own "kind" names the event
        data.pop("about"), data.pop("edit_format")  # in the summary, not the event
        self.bus.emit(ev.ReviewOutcome(iteration=self.iteration, **data))

    def _kind(self, target: Target) -> Kind:
        if target.cascade is not None:
            return "cascade"
        return "feature" if self.opts.focus == "features" else "bug"

    def _propose(self, target: Target, texts: dict[str, str], index: RepoIndex) -> ProposalOutcome:
        kind = self._kind(target)
        ctx = self._context(target, texts, index)
        assert self.baseline is not None
        self._phase("proposing", target=target.path, proposal=kind)
        outcome = self.proposer.propose(target, kind, ctx, self.baseline)
        if (
            outcome.status == "clean"
            and kind == "bug"
            and self.opts.focus == "both"
            and not ctx.focus.findings
        ):
            self._phase("proposing", target=target.path, proposal="feature")
            outcome = self.proposer.propose(target, "feature", ctx, self.baseline)
        self._report(outcome)
        return outcome

    def _context(self, target: Target, texts: dict[str, str], index: RepoIndex) -> TargetContext:
        assert self.baseline is not None
        notes = read_memory(self.repo.root)
        deps = find_dependents(index.symbols, [target.path])[:8]
        self.analysis.ensure([target.path, *deps], texts, index,
                             lambda path: self._phase("summarising", target=path))  # fmt: skip
        return TargetContext(
            texts=texts,
            focus=focus(self.baseline.tests, self.findings.of(target.path), target.path, texts),
            project=self.analysis.excerpt([target.path, *deps], chars=900),
            recall=self.memory.recall(),
            outline=index.repo_map(focus=[target.path], tokens=500),
            notes=notes.text[:1500],
            note_sources=notes.sources,
        )

    def _write_pending(self, proposal: Proposal, diff: str) -> None:
        entry = pending_entry(target=proposal.target, kind=proposal.kind,
                              iteration=self.iteration,
                              findings=[f.render() for f in self.findings.of(proposal.target)],
                              rationale=proposal.rationale, diff=diff)  # fmt: skip
        self.paths.write(pending_name(proposal.kind), entry)
        self.bus.emit(ReviewProposal(iteration=self.iteration, target=proposal.target,
                                     proposal=proposal.kind, rationale=proposal.rationale,
                                     diff=diff[:20000]))  # fmt: skip

    def _settle(self, outcome: ProposalOutcome, before: dict[str, str], files: Sequence[str],
                index: RepoIndex) -> None:  # fmt: skip
        if outcome.status == "rejected":
            self.settler.reject(outcome)
            return
        if outcome.status != "accepted":
            self.settler.dismiss(outcome)
            return
        self._phase("committing", files=outcome.files)
        self.settler.accept(outcome, self.summary.notes)
        after = self.session.read_texts()
        index = self._index()  # brought up to date with the change
        queued = {i.path for i in self.queue}
        new = cascade_items(index, outcome, before, after, self.paths.relative_names)
        self.queue += [i for i in new if i.path not in queued]
        if new:
            self.bus.emit(ReviewCascade(trigger=outcome.target, queued=[i.path for i in new],
                                        ripples=[r for i in new for r in i.ripples],
                                        queue=[i.path for i in self.queue]))  # fmt: skip
        files = self._files(index)
        self.analysis.refresh(index, after, files)
        self._rebaseline(after, files, outcome.test_run)

    # -- usage -----------------------------------------------------------------------------
    def _new_ledger(self) -> None:
        """Keeps what the calls so far cost; the session's ledger (and caps) start anew."""
        self._spent = self._totals()
        self.session.start_task()

    def _totals(self) -> Totals:
        return self._spent + self.session.usage

    def _on_usage(self, event: Event) -> None:
        if isinstance(event, ModelReply):
            self.bus.emit(ReviewUsage(**self._totals().to_dict()))


def run_review(opts: ReviewOptions, *, session: Session, console: Console,
               desk: CheckpointDesk | None = None, interactive: bool | None = None,
               on_token: Callable[[str], None] | None = None) -> ReviewSummary:  # fmt: skip
    """Run the review loop; raises :class:`RunError` for usage/configuration problems."""
    return ReviewLoop(opts, session, console, desk or CheckpointDesk(session.bus),
                      interactive=interactive, on_token=on_token).run()  # fmt: skip
