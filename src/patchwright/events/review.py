"""The events of a review run (``patchwright review``), one iteration at a time: target,
proposal, gates, checkpoint, outcome, memory. The review's state (the dashboard's snapshot)
and its terminal printer are built from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from patchwright.events.base import Event


@dataclass(frozen=True, kw_only=True)
class ReviewStart(Event):
    kind: ClassVar[str] = "review.start"
    run_id: str
    model: str
    focus: str
    iterations: int
    targets: list[str]
    memory_dir: str


@dataclass(frozen=True, kw_only=True)
class ReviewPhase(Event):
    """What the loop does now; the details name the target, proposal, files or pause."""

    kind: ClassVar[str] = "review.phase"
    phase: str
    iteration: int
    seconds: float | None = None
    target: str | None = None
    proposal: str | None = None
    files: list[str] | None = None


@dataclass(frozen=True, kw_only=True)
class ReviewAnalysis(Event):
    """ANALYSIS.md (the project map) written; ``by_model``: summaries the model wrote."""

    kind: ClassVar[str] = "review.analysis"
    files: int
    by_model: int
    path: str


@dataclass(frozen=True, kw_only=True)
class ReviewFindings(Event):
    """The linters', type checkers' and tests' findings, per file."""

    kind: ClassVar[str] = "review.findings"
    total: int
    files: dict[str, int]
    failing_tests: int
    notes: list[str]


@dataclass(frozen=True, kw_only=True)
class ReviewIteration(Event):
    kind: ClassVar[str] = "review.iteration"
    iteration: int
    limit: int


@dataclass(frozen=True, kw_only=True)
class ReviewTarget(Event):
    """The file reviewed this iteration and why; ``score`` None for a cascade."""

    kind: ClassVar[str] = "review.target"
    path: str
    score: float | None
    reasons: list[str]
    cascade: bool
    iteration: int
    runners_up: list[dict[str, object]]
    queue: list[str]


@dataclass(frozen=True, kw_only=True)
class ReviewPress(Event):
    """The model said "clean" while the tools still report findings: asked again."""

    kind: ClassVar[str] = "review.press"
    findings: int
    why: str


@dataclass(frozen=True, kw_only=True)
class ReviewDependents(Event):
    """Files that import the touched ones, checked with them."""

    kind: ClassVar[str] = "review.dependents"
    touched: list[str]
    paths: list[str]


@dataclass(frozen=True, kw_only=True)
class ReviewProgress(Event):
    """Whether a change fixed any of the findings it was asked to."""

    kind: ClassVar[str] = "review.progress"
    met: bool
    fixed: list[str]


@dataclass(frozen=True, kw_only=True)
class ReviewProposal(Event):
    kind: ClassVar[str] = "review.proposal"
    iteration: int
    target: str
    proposal: str
    rationale: str
    diff: str


@dataclass(frozen=True, kw_only=True)
class ReviewCheckpoint(Event):
    """A proposal waits for the person (terminal or dashboard) until ``deadline``."""

    kind: ClassVar[str] = "review.checkpoint"
    id: str
    target: str
    proposal: str
    rationale: str
    diff: str
    problems: str
    deadline: float | None
    can_apply: bool


@dataclass(frozen=True, kw_only=True)
class ReviewCheckpointResolved(Event):
    kind: ClassVar[str] = "review.checkpoint.resolved"
    id: str
    decision: str
    by: str


@dataclass(frozen=True, kw_only=True)
class ReviewOutcome(Event):
    """What became of the iteration's proposal: accepted (``commit``), rejected, skipped,
    failed or clean."""

    kind: ClassVar[str] = "review.outcome"
    iteration: int
    status: str
    proposal: str
    target: str
    rationale: str
    files: list[str]
    commit: str | None
    fixed: list[str]
    errors: str
    reason: str
    attempts: int


@dataclass(frozen=True, kw_only=True)
class ReviewCascade(Event):
    """A change rippled (a signature changed): its callers are queued for review."""

    kind: ClassVar[str] = "review.cascade"
    trigger: str
    queued: list[str]
    ripples: list[str]
    queue: list[str]


@dataclass(frozen=True, kw_only=True)
class ReviewHistory(Event):
    kind: ClassVar[str] = "review.history"
    paths: list[str]
    commit: str | None


@dataclass(frozen=True, kw_only=True)
class ReviewMemory(Event):
    kind: ClassVar[str] = "review.memory"
    iteration: int
    chars: int
    compacted: bool
    by_model: bool


@dataclass(frozen=True, kw_only=True)
class ReviewModelFailed(Event):
    """A short answer (summary, memory) the model could not give; the loop went on."""

    kind: ClassVar[str] = "review.model_failed"
    phase: str
    error: str


@dataclass(frozen=True, kw_only=True)
class ReviewUsage(Event):
    """The run's model usage so far (after every reply)."""

    kind: ClassVar[str] = "review.usage"
    calls: int
    attempts: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cost: float
    seconds: float
    estimated: bool = False  # some counts are patchwright's: the server sent none


@dataclass(frozen=True, kw_only=True)
class ReviewEnd(Event):
    """The run's summary, as ``summary.json`` has it."""

    kind: ClassVar[str] = "review.end"
    outcome: str
    iterations: int
    accepted: list[dict[str, object]]
    rejected: list[dict[str, object]]
    skipped: list[dict[str, object]]
    failed: list[dict[str, object]]
    clean: list[str]
    cascade_left: list[str]
    usage: dict[str, object]
    seconds: float
    reason: str
    notes: list[str]
    memory_dir: str
    run_id: str
