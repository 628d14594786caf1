"""``solve(session, request) -> SolveResult``: one task, end to end — the one entry every
mode calls (``run``, chat's tasks, a review's proposals, SWE-bench's agent candidates).

Read it top to bottom:

1. :func:`~patchwright.agent.task.repo.open_repo` — git state as the request says (a new
   branch, the user's uncommitted files), the test command.
2. :func:`choose_strategy` from the model's catalog entry, and :func:`check_fits`: a setting
   the strategy cannot honour stops the task here (:class:`RunError`, exit 2), before
   anything runs.
3. :func:`~patchwright.agent.task.prepare.prepare` — the baseline, what "done" means (the
   criterion, shown to the user), the read-only tests, the gates.
4. The strategy wired (:mod:`~patchwright.agent.task.pipeline_strategy` or
   :mod:`~patchwright.agent.task.agent_strategy`) and run; it keeps its change through
   :mod:`~patchwright.agent.keeping` (approval, the person's own edit, the transaction).
5. :func:`~patchwright.agent.task.land.land` — the commit and its publishing, or the change
   handed back.
6. The run record (``run.start`` … ``run.end``, ``summary.json``), written in a ``finally``.

A caller that runs many tasks over one repository (the review) passes a :class:`Plan`: its
own groundwork (a baseline it keeps between tasks) and its own wiring of the pipeline (its
prompt, gates and checkpoint) replace steps 2–4; the rest is the same road. Its record
nests in the caller's (``parent``).

A gate that could not run ends the task ``error`` with the reason; a stop ends it
``interrupted`` with the repository restored; a crash still leaves a record and a restored
repository. Nothing is kept that was not checked.
"""

from __future__ import annotations

import time
from typing import Literal, Protocol

from patchwright.agent.checker import GatesCouldNotRun
from patchwright.agent.record import RunRecord
from patchwright.agent.request import RunError, Strategy, TaskRequest
from patchwright.agent.session import Session
from patchwright.agent.solve_types import Person, SolveResult, Unattended, Wired
from patchwright.agent.task.agent_strategy import build_agent
from patchwright.agent.task.land import land
from patchwright.agent.task.pipeline_strategy import build_pipeline
from patchwright.agent.task.prepare import Groundwork, prepare
from patchwright.agent.task.repo import TaskRepo, open_repo
from patchwright.events import RunEnd, RunStart, StrategyChosen
from patchwright.llm import CapExceeded, ModelInfo, OnToken, redact

Chosen = Literal["pipeline", "agent"]


class Plan(Protocol):
    """A caller's own groundwork and wiring for a task (steps 2–4 of the module docstring)."""

    def ground(self, session: Session, repo: TaskRepo, request: TaskRequest) -> Groundwork: ...

    def build(
        self, session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
        record: RunRecord, person: Person, on_token: OnToken | None,
    ) -> Wired: ...  # fmt: skip


def solve(
    session: Session,
    request: TaskRequest,
    *,
    person: Person | None = None,
    on_token: OnToken | None = None,
    plan: Plan | None = None,
    parent: RunRecord | None = None,
) -> SolveResult:
    """Solve ``request`` in the session's repository (see the module docstring). ``person``
    approves changes and commands (default: nobody, which needs ``--yes``); ``on_token``
    sees the model's replies as they stream; ``plan`` (default: the strategy the catalog
    chooses, over a fresh baseline) and ``parent`` are for a caller that runs many tasks.
    Raises :class:`RunError` when the task cannot start; every other ending is in the
    result, and what ended it early in ``result.stop``."""
    started = time.monotonic()
    if person is None:
        person = _unattended(request)
    session.recover()
    repo = open_repo(session, request)
    record = parent.child() if parent else RunRecord(repo.root, redact=redact)
    result = SolveResult("failed", record.run_id)
    bus = session.bus
    stop_recording = bus.subscribe(record.on_event)
    session.start_task()
    ignored = session.settings.ignored  # the repository config's untrusted keys, left out
    bus.emit(RunStart(run_id=record.run_id, task=request.task, model=session.model.name,
                      ignored_settings=list(ignored) or None,
                      parent=parent.run_id if parent else None))  # fmt: skip
    try:
        _solve(session, request, repo, person, record, result, on_token, plan)
    except KeyboardInterrupt as stop:
        by = f"stopped by {stop.args[0]}" if stop.args else "interrupted by the user"
        kept = f" after committing {result.commit[:12]}" if result.commit else ""
        result.outcome, result.stop = "interrupted", stop
        result.reason = f"{by}{kept}; " + ("not pushed" if kept else "repository restored")
    except CapExceeded as exc:  # checked before each call: nothing is half-written
        result.outcome, result.reason = "failed", f"{exc.cap} cap reached: {exc}"
        result.stop = exc
    except GatesCouldNotRun as exc:  # the change was rolled back: nothing unchecked is kept
        result.outcome, result.reason = "error", str(exc)
        result.gates, result.stop = exc.check.gate_statuses, exc
    except RunError as exc:
        result.outcome, result.reason = "error", str(exc)
        raise
    except Exception as exc:  # a crash must still leave a record and a restored repo
        result.outcome, result.reason = "error", f"{type(exc).__name__}: {exc}"
        result.stop = exc
    finally:
        _finish(session, request, record, result, started)
        stop_recording()
    return result


def _unattended(request: TaskRequest) -> Person:
    if not request.approval.yes:
        raise RunError(
            "nobody can approve the change: pass --yes to apply verified changes unattended"
        )
    return Unattended()


def _solve(
    session: Session, request: TaskRequest, repo: TaskRepo, person: Person, record: RunRecord,
    result: SolveResult, on_token: OnToken | None, plan: Plan | None,
) -> None:  # fmt: skip
    if plan is None:
        plan = _ChosenStrategy()
    ground = plan.ground(session, repo, request)
    result.criterion = ground.criterion.to_json()
    result.notes.extend(ground.criterion.notes)
    wired = plan.build(session, repo, request, ground, record, person, on_token)
    result.strategy, result.edit_format = wired.strategy, wired.edit_format
    result.candidates = wired.candidates
    solved = wired.run()
    result.take(solved)
    if solved.outcome in ("solved", "unverified"):
        note = solved.check.unproved_note() if solved.check else None
        result.notes.extend([note] if note else [])
        land(session, repo, request, solved, result)
        result.outcome = solved.outcome


class _ChosenStrategy:
    """The default plan: the strategy the model's catalog entry calls for, over a fresh
    baseline (:func:`prepare`)."""

    def ground(self, session: Session, repo: TaskRepo, request: TaskRequest) -> Groundwork:
        info = session.model.info
        self.strategy = choose_strategy(request.strategy, info)
        check_fits(request, self.strategy, info)
        session.bus.emit(StrategyChosen(strategy=self.strategy, requested=request.strategy))
        return prepare(session, repo, request)

    def build(
        self, session: Session, repo: TaskRepo, request: TaskRequest, ground: Groundwork,
        record: RunRecord, person: Person, on_token: OnToken | None,
    ) -> Wired:  # fmt: skip
        build = build_agent if self.strategy == "agent" else build_pipeline
        return build(session, repo, request, ground, record, person, on_token)


def choose_strategy(requested: Strategy, info: ModelInfo) -> Chosen:
    """``auto``: the agent for a model whose catalog entry has native tool calls and is not
    small; the pipeline otherwise (a small model cannot drive tools reliably)."""
    if requested != "auto":
        return requested
    return "agent" if info.tools and not info.small else "pipeline"


def check_fits(request: TaskRequest, strategy: Chosen, info: ModelInfo) -> None:
    """Refuse (:class:`RunError`) a setting the chosen strategy cannot honour, naming both."""
    candidates = request.limits.candidates
    if strategy == "pipeline" and request.skip_plan:
        why = (
            "--strategy pipeline"
            if request.strategy == "pipeline"
            else f"auto chose it for {info.spec}, a small or tool-less model"
        )
        raise RunError(
            f"--no-plan skips the agent strategy's planner; the pipeline ({why}) has none: "
            "leave --no-plan out, or pass --strategy agent"
        )
    if strategy == "agent" and candidates is not None and candidates > 1:
        why = (
            "--strategy agent"
            if request.strategy == "agent"
            else f"auto chose it for {info.spec}, a model that drives tools"
        )
        raise RunError(
            f"--candidates {candidates} samples several replies per iteration, which only the "
            f"pipeline strategy does; the agent strategy ({why}) makes one change at a time: "
            "leave --candidates out, or pass --strategy pipeline"
        )


def _finish(
    session: Session, request: TaskRequest, record: RunRecord, result: SolveResult,
    started: float,
) -> None:  # fmt: skip
    usage = session.usage
    result.prompt_tokens = usage.usage.prompt_tokens
    result.completion_tokens = usage.usage.completion_tokens
    result.tokens_estimated = usage.usage.estimated
    result.cost, result.calls = usage.cost, usage.calls
    result.temperatures = [call.temperature for call in session.model.calls]
    result.seeds = [call.seed for call in session.model.calls]
    result.seconds = time.monotonic() - started
    session.bus.emit(RunEnd(**result.to_json()))
    record.write_summary({**result.to_json(), "diff": result.diff,
                          "edit_format": result.edit_format, "first_try": result.first_try,
                          "gates": result.gates, "task": request.task,
                          "model": session.model.name})  # fmt: skip
