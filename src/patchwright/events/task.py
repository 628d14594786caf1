"""The events of one task, in the order a run meets them: start, repository, index,
baseline and criterion, context, the strategy's replies and edits, the gates, the
transaction, the end. ``solve`` and the strategies emit them; the run record, the status
line, the chat and the review's dashboard listen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from patchwright.events.base import Event

# -- the run -------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class RunStart(Event):
    """``solve`` began a task; ``ignored_settings`` names settings the strategy cannot honour;
    ``parent``: the run it is part of (a review's proposal), whose record holds this one's."""

    kind: ClassVar[str] = "run.start"
    run_id: str
    task: str
    model: str
    ignored_settings: list[str] | None = None
    parent: str | None = None


@dataclass(frozen=True, kw_only=True)
class StrategyChosen(Event):
    kind: ClassVar[str] = "strategy.chosen"
    strategy: str
    requested: str


@dataclass(frozen=True, kw_only=True)
class RunEnd(Event):
    """The task's outcome, as ``summary.json`` has it (less the diff)."""

    kind: ClassVar[str] = "run.end"
    outcome: str
    iterations: int
    files_changed: list[str]
    commit: str | None
    criterion: dict[str, object]
    usage: dict[str, int]
    cost: float
    seconds: float
    calls: int
    retries: int
    candidates: int
    strategy: str
    steps: int
    role_usage: dict[str, dict[str, int]]
    temperatures: list[float | None]
    seeds: list[int | None]  # a sampled call's seed, per call (None: greedy)
    reason: str
    run_id: str
    notes: list[str]


# -- the repository and its index ----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GitAbsent(Event):
    kind: ClassVar[str] = "git.absent"
    message: str


@dataclass(frozen=True, kw_only=True)
class GitBranch(Event):
    """The task works on a branch of its own."""

    kind: ClassVar[str] = "git.branch"
    branch: str


@dataclass(frozen=True, kw_only=True)
class TxnRecovered(Event):
    """Transactions an earlier crash left half done were finished or undone."""

    kind: ClassVar[str] = "txn.recovered"
    transactions: list[str]


@dataclass(frozen=True, kw_only=True)
class IndexStart(Event):
    kind: ClassVar[str] = "index.start"


@dataclass(frozen=True, kw_only=True)
class IndexProgress(Event):
    kind: ClassVar[str] = "index.progress"
    done: int
    total: int


@dataclass(frozen=True, kw_only=True)
class IndexDone(Event):
    kind: ClassVar[str] = "index.done"
    files: int
    parsed: int


@dataclass(frozen=True, kw_only=True)
class IndexFailed(Event):
    kind: ClassVar[str] = "index.failed"
    error: str


@dataclass(frozen=True, kw_only=True)
class McpFailed(Event):
    kind: ClassVar[str] = "mcp.failed"
    server: str
    error: str


# -- what "done" means ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BaselineStart(Event):
    """The tests run once before any change (what fails already is no regression)."""

    kind: ClassVar[str] = "baseline.start"


@dataclass(frozen=True, kw_only=True)
class BaselineDone(Event):
    kind: ClassVar[str] = "baseline.done"
    failing: int


@dataclass(frozen=True, kw_only=True)
class CriterionDecided(Event):
    """What "done" means for the task, decided before the first edit."""

    kind: ClassVar[str] = "criterion.decided"
    defined: bool
    description: str
    test_cmd: str | None
    targets: list[str]
    target_files: list[str]
    done_when: list[str]
    already_met: list[str]
    proves: bool
    unrelated_failures: list[str]
    covered_tests: list[str]
    coverage_seconds: float
    notes: list[str]
    must_pass: list[str]  # with test_cmd: the tests failing before the change


@dataclass(frozen=True, kw_only=True)
class CriterionResult(Event):
    """Whether a change that passed the gates meets the criterion."""

    kind: ClassVar[str] = "criterion.result"
    met: bool
    remaining: list[str]
    proved: bool


@dataclass(frozen=True, kw_only=True)
class ContextBuilt(Event):
    """The files shown to the model; ``tokens`` where the pipeline counted them."""

    kind: ClassVar[str] = "context.built"
    files: list[str]
    omitted: list[str]
    fmt: str
    tokens: int | None = None


# -- the pipeline's replies and edits ------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class IterationStart(Event):
    kind: ClassVar[str] = "iteration.start"
    iteration: int


@dataclass(frozen=True, kw_only=True)
class CandidateStart(Event):
    """Another candidate of the same iteration (``candidates`` > 1: sampled replies)."""

    kind: ClassVar[str] = "candidate.start"
    iteration: int
    candidate: int


@dataclass(frozen=True, kw_only=True)
class EditApplied(Event):
    """A reply's edits applied in memory (nothing on disk yet)."""

    kind: ClassVar[str] = "edit.applied"
    iteration: int
    paths: list[str]
    notes: list[str]


@dataclass(frozen=True, kw_only=True)
class EditFailed(Event):
    """A reply that did not apply; ``attempt`` says why (no_edits, failed, unchanged, ...)."""

    kind: ClassVar[str] = "edit.failed"
    iteration: int
    attempt: str
    feedback: str


@dataclass(frozen=True, kw_only=True)
class EditRetry(Event):
    """A failed reply answered and asked again, within the free retries."""

    kind: ClassVar[str] = "edit.retry"
    used: int
    budget: int
    why: str


@dataclass(frozen=True, kw_only=True)
class EditRefocused(Event):
    """Whole-file attempts failed: the next ones ask for the one function the failing tests
    convict, in a fresh conversation — corrected (``way`` "fix"), then, if that fails too,
    written anew without its body shown ("rewrite")."""

    kind: ClassVar[str] = "edit.refocus"
    iteration: int  # the first iteration asked this way
    definition: str
    path: str
    way: str = "fix"


# -- the agent's roles and tools -----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ToolCall(Event):
    kind: ClassVar[str] = "tool.call"
    role: str
    tool: str
    arguments: dict[str, str]
    ok: bool
    observation: str


@dataclass(frozen=True, kw_only=True)
class ToolRefused(Event):
    """A role asked for a tool it is not allowed (the jail is code, not prompt)."""

    kind: ClassVar[str] = "tool.refused"
    role: str
    tool: str
    allowed: list[str]


@dataclass(frozen=True, kw_only=True)
class AgentLoop(Event):
    """The loop detector saw a role repeat itself; ``action``: nudge or stop."""

    kind: ClassVar[str] = "agent.loop"
    role: str
    reason: str
    action: str


@dataclass(frozen=True, kw_only=True)
class AgentPlan(Event):
    """The planner's hand-over: its steps and files, or why it gave none."""

    kind: ClassVar[str] = "agent.plan"
    steps: list[str] | None = None
    files: list[str] | None = None
    reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class AgentRejected(Event):
    """The reviewer (or the person at the approval) sent the change back to the coder."""

    kind: ClassVar[str] = "agent.rejected"
    reasons: str
    by_user: bool


# -- gates and the transaction -------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class GateResult(Event):
    """One gate's verdict on a change, judged against the baseline."""

    kind: ClassVar[str] = "gate.result"
    gate: str
    status: str
    new_problems: int
    fixed_problems: int
    seconds: float
    reason: str | None


@dataclass(frozen=True, kw_only=True)
class TxnWrite(Event):
    """A change written to disk, to be checked (rolled back unless kept)."""

    kind: ClassVar[str] = "txn.write"
    iteration: int
    paths: list[str]


@dataclass(frozen=True, kw_only=True)
class TxnRollback(Event):
    kind: ClassVar[str] = "txn.rollback"
    reason: str
    iteration: int | None = None


@dataclass(frozen=True, kw_only=True)
class ApprovalEdited(Event):
    """The person edited the change at the approval; it was checked again."""

    kind: ClassVar[str] = "approval.edited"
    ok: bool
    diff: str
    problems: str
    iteration: int | None = None


@dataclass(frozen=True, kw_only=True)
class TxnCommit(Event):
    """A change kept: ``undo`` is its undo entry (``patchwright undo``)."""

    kind: ClassVar[str] = "txn.commit"
    undo: str
    paths: list[str]
    iteration: int | None = None


@dataclass(frozen=True, kw_only=True)
class TxnHandedBack(Event):
    """A change that passed, handed back to the caller unwritten (SWE-bench, review)."""

    kind: ClassVar[str] = "txn.handed_back"
    paths: list[str]
    iteration: int | None = None


@dataclass(frozen=True, kw_only=True)
class TxnUndo(Event):
    """A kept change undone again: a stop came before it was committed to git."""

    kind: ClassVar[str] = "txn.undo"
    reason: str
