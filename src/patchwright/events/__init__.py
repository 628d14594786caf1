"""Typed events and the bus that carries them to listeners (run record, terminal, TUI,
dashboard).

Every kind of event is a frozen dataclass (:mod:`.base` says how one is declared), grouped
by who emits it: :mod:`.task` (``solve`` and the strategies), :mod:`.model` (the router),
:mod:`.review` and :mod:`.swebench` (those modes). ``bus.emit(GateResult(...))`` hands one
to every listener; :meth:`Event.to_json` is the line written to
``.patchwright/runs/<run-id>/events.jsonl``: ``{"kind": ..., "ts": ..., <fields>}``.
Listeners match on the class, so mypy rejects a field the kind does not have.
"""

from patchwright.events.base import KINDS, Event, Listener, declared_fields
from patchwright.events.bus import EventBus, JsonlWriter
from patchwright.events.model import (
    ModelFallback,
    ModelKeyCooled,
    ModelKeyRefused,
    ModelReply,
    ModelRequest,
    ModelRetry,
    ModelWait,
)
from patchwright.events.review import (
    ReviewAnalysis,
    ReviewCascade,
    ReviewCheckpoint,
    ReviewCheckpointResolved,
    ReviewDependents,
    ReviewEnd,
    ReviewFindings,
    ReviewHistory,
    ReviewIteration,
    ReviewMemory,
    ReviewModelFailed,
    ReviewOutcome,
    ReviewPhase,
    ReviewPress,
    ReviewProgress,
    ReviewProposal,
    ReviewStart,
    ReviewTarget,
    ReviewUsage,
)
from patchwright.events.swebench import (
    CandidateReply,
    CandidateValidated,
    InstanceBaseline,
    InstanceEnd,
    InstanceStart,
    LocaliseDone,
    RepoTestsBaseline,
    ReproductionTest,
    TnrKept,
    TnrResult,
    TnrTrial,
)
from patchwright.events.task import (
    AgentLoop,
    AgentPlan,
    AgentRejected,
    ApprovalEdited,
    BaselineDone,
    BaselineStart,
    CandidateStart,
    ContextBuilt,
    CriterionDecided,
    CriterionResult,
    EditApplied,
    EditFailed,
    EditRefocused,
    EditRetry,
    GateResult,
    GitAbsent,
    GitBranch,
    IndexDone,
    IndexFailed,
    IndexProgress,
    IndexStart,
    IterationStart,
    McpFailed,
    RunEnd,
    RunStart,
    StrategyChosen,
    ToolCall,
    ToolRefused,
    TxnCommit,
    TxnHandedBack,
    TxnRecovered,
    TxnRollback,
    TxnUndo,
    TxnWrite,
)

__all__ = [
    "KINDS", "AgentLoop", "AgentPlan", "AgentRejected", "ApprovalEdited", "BaselineDone",
    "BaselineStart", "CandidateReply", "CandidateStart", "CandidateValidated", "ContextBuilt",
    "CriterionDecided", "CriterionResult", "EditApplied", "EditFailed", "EditRefocused",
    "EditRetry", "Event", "EventBus", "GateResult", "GitAbsent", "GitBranch", "IndexDone", "IndexFailed",
    "IndexProgress", "IndexStart", "InstanceBaseline", "InstanceEnd", "InstanceStart",
    "IterationStart", "JsonlWriter", "Listener", "LocaliseDone", "McpFailed", "ModelFallback",
    "ModelKeyCooled", "ModelKeyRefused", "ModelReply", "ModelRequest", "ModelRetry",
    "ModelWait", "RepoTestsBaseline", "ReproductionTest", "ReviewAnalysis", "ReviewCascade",
    "ReviewCheckpoint", "ReviewCheckpointResolved", "ReviewDependents", "ReviewEnd",
    "ReviewFindings", "ReviewHistory", "ReviewIteration", "ReviewMemory", "ReviewModelFailed",
    "ReviewOutcome", "ReviewPhase", "ReviewPress", "ReviewProgress", "ReviewProposal",
    "ReviewStart", "ReviewTarget", "ReviewUsage", "RunEnd", "RunStart", "StrategyChosen",
    "TnrKept", "TnrResult", "TnrTrial", "ToolCall", "ToolRefused", "TxnCommit", "TxnHandedBack",
    "TxnRecovered", "TxnRollback", "TxnUndo", "TxnWrite", "declared_fields",
]  # fmt: skip
