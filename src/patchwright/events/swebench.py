"""The events of one SWE-bench instance (``patchwright swebench``), written to its
``events.ndjson``: the instance's environment and baseline, localisation, the sampled
candidates and the test-and-rollback trials that pick the winner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from patchwright.events.base import Event


@dataclass(frozen=True, kw_only=True)
class InstanceStart(Event):
    """``oracle_tests``: the hidden tests localise and choose the prediction
    (``--oracle-tests``), which no leaderboard allows."""

    kind: ClassVar[str] = "instance.start"
    instance_id: str
    model: str
    oracle_tests: bool


@dataclass(frozen=True, kw_only=True)
class InstanceBaseline(Event):
    """The instance's hidden FAIL_TO_PASS and PASS_TO_PASS tests run before any change
    (``--oracle-tests`` only)."""

    kind: ClassVar[str] = "instance.baseline"
    f2p_failing: int
    p2p_failing: int
    seconds: float
    problem: str | None


@dataclass(frozen=True, kw_only=True)
class RepoTestsBaseline(Event):
    """The fair mode's baseline: the repository's own test files at the base commit (and the
    agent's reproduction test) run before any change; ``command`` is what every trial runs."""

    kind: ClassVar[str] = "instance.repo_tests"
    command: str
    files: list[str]
    passing: int
    failing: int
    reproducing: int
    seconds: float
    problem: str | None


@dataclass(frozen=True, kw_only=True)
class ReproductionTest(Event):
    """A test the model wrote from the issue alone; ``kept`` when it fails before any change
    (``tests``: its failing tests, which a candidate must make pass)."""

    kind: ClassVar[str] = "reproduction.test"
    path: str
    text: str
    kept: bool
    tests: list[str]
    reason: str


@dataclass(frozen=True, kw_only=True)
class LocaliseDone(Event):
    """The suspect functions, and where the gold patch's file and function rank among them."""

    kind: ClassVar[str] = "localise.done"
    suspects: list[str]
    file_rank: int | None
    function_rank: int | None


@dataclass(frozen=True, kw_only=True)
class CandidateReply(Event):
    """What the model answered for one candidate (its usage is in the router's
    ``model.reply``)."""

    kind: ClassVar[str] = "candidate.reply"
    candidate: int
    text: str


@dataclass(frozen=True, kw_only=True)
class CandidateValidated(Event):
    """A candidate checked before its trial; ``refused`` holds the validators' reasons."""

    kind: ClassVar[str] = "candidate.validated"
    candidate: int
    refused: list[str]


@dataclass(frozen=True, kw_only=True)
class TnrTrial(Event):
    """A candidate written into the instance's tree for its trial."""

    kind: ClassVar[str] = "tnr.trial"
    candidate: int
    paths: list[str]


@dataclass(frozen=True, kw_only=True)
class TnrResult(Event):
    """A trial's verdict; the candidate is rolled back either way (the winner is re-applied
    last)."""

    kind: ClassVar[str] = "tnr.result"
    candidate: int
    passed: bool
    churn: float
    reason: str


@dataclass(frozen=True, kw_only=True)
class TnrKept(Event):
    """The passing candidate with the least churn, left in the tree."""

    kind: ClassVar[str] = "tnr.kept"
    candidate: int
    churn: float


@dataclass(frozen=True, kw_only=True)
class InstanceEnd(Event):
    kind: ClassVar[str] = "instance.end"
    outcome: str
    reason: str
    seconds: float
