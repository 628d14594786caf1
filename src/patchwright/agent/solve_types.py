"""What both strategies share: what a strategy hands back, how it asks the user to approve a
change, and the transaction it writes through. The pipeline's solver
(:mod:`patchwright.agent.pipeline_solver`) and the agent's (:mod:`patchwright.agent.agent_solver`)
both return a :class:`StrategyResult`; :func:`patchwright.agent.solve.solve` turns it into
the task's ``SolveResult``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from patchwright.agent.checker import Check
from patchwright.agent.tools.bench import CommandApprover, refuse_commands
from patchwright.llm import Message

Decision = Literal["apply", "skip", "regenerate", "edited"]
Changes = dict[str, bytes | None]


class Approver(Protocol):
    """Shown the verified diff (and, after a user's own edit, what the gates found wrong
    with it), answers: apply it, skip the task, regenerate, or "edited" (the user changed
    the files on disk: re-verify and ask again)."""

    def __call__(self, diff: str, problems: str = "") -> Decision: ...


class Person(Protocol):
    """Who a task asks: to approve a verified change (``paths`` are the files it changes, for
    an editor to open) and to run a command the policy rates "ask"."""

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver: ...

    def command_approver(self) -> CommandApprover: ...


def _apply(diff: str, problems: str = "") -> Decision:
    return "apply"


class Unattended:
    """Nobody to ask (``--yes``, SWE-bench): a verified change is applied; a command that
    needs approval does not run (approving changes is not approving arbitrary commands)."""

    def change_approver(self, root: Path, paths: Callable[[], Sequence[str]]) -> Approver:
        return _apply

    def command_approver(self) -> CommandApprover:
        return refuse_commands


class Txn(Protocol):
    def stage(self, changes: Changes) -> None: ...
    def write(self) -> None: ...
    def rollback(self) -> None: ...
    def commit(self, label: str = "") -> str: ...


StrategyOutcome = Literal["solved", "unverified", "failed", "skipped"]


@dataclass
class StrategyResult:
    outcome: StrategyOutcome
    iterations: int
    files_changed: list[str] = field(default_factory=list)
    diff: str = ""
    reason: str = ""
    first_try: bool = False
    check: Check | None = None  # the last check made: gate statuses and the verdict
    retries: int = 0
    replies: int = 0
    steps: int = 0  # agent mode: model calls of all roles
    role_usage: dict[str, dict[str, int]] = field(default_factory=dict)
    commit_message: str = ""  # agent mode: the reviewer's message, as written
    changes: Changes = field(default_factory=dict)  # the kept change's bytes (None: deleted)
    # pipeline: the request that made the kept change as sent, and its reply
    exchange: list[Message] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the tool did to the kept change


@dataclass(frozen=True)
class Wired:
    """A strategy wired for one task: its name, what it reports up front (the edit format
    asked for, the replies sampled per iteration) and how to run it."""

    strategy: Literal["pipeline", "agent"]
    run: Callable[[], StrategyResult]
    edit_format: str = ""
    candidates: int = 1


Outcome = Literal["solved", "unverified", "failed", "error", "interrupted"]


@dataclass
class SolveResult:
    """What :func:`patchwright.agent.solve.solve` hands back: the task's outcome, the change
    (kept: its files, diff and commit; handed back: its bytes in ``changes``), the checks'
    verdicts, the usage and the reason."""

    outcome: Outcome
    run_id: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    commit: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False  # the server counted none: the counts are estimates
    cost: float = 0.0
    seconds: float = 0.0
    reason: str = ""
    diff: str = ""
    changes: Changes = field(default_factory=dict)
    first_try: bool = False
    edit_format: str = ""
    notes: list[str] = field(default_factory=list)
    gates: dict[str, str] = field(default_factory=dict)
    criterion: dict[str, Any] = field(default_factory=dict)
    retries: int = 0
    calls: int = 0
    candidates: int = 1
    strategy: str = ""
    steps: int = 0
    role_usage: dict[str, dict[str, int]] = field(default_factory=dict)
    temperatures: list[float | None] = field(default_factory=list)  # per call, as sent
    seeds: list[int | None] = field(default_factory=list)  # per call: a sampled call's seed
    # What ended the task early (a stop, a cap, gates that could not run, a crash), for a
    # caller that runs many tasks to re-raise and end its own loop; not part of the JSON.
    stop: BaseException | None = field(default=None, repr=False, compare=False)

    def take(self, solved: StrategyResult) -> None:
        """What the strategy reports: its rounds, reason, retries and the last check."""
        self.iterations, self.reason = solved.iterations, solved.reason
        self.first_try, self.retries = solved.first_try, solved.retries
        self.steps, self.role_usage = solved.steps, solved.role_usage
        self.notes.extend(solved.notes)
        if solved.check is not None:
            self.gates = solved.check.gate_statuses
            if solved.check.verdict is not None:
                self.criterion.update(solved.check.verdict.to_json())
        elif solved.outcome == "failed" and self.criterion.get("defined"):
            # no change was ever checked (each reply changed nothing): what failed still does
            crit = self.criterion
            left = (crit.get("must_pass") or crit.get("targets")
                    or [crit.get("test_cmd"), *crit.get("done_when", [])])  # fmt: skip
            self.criterion.update({"met": False, "remaining": [x for x in left if x],
                                   "proved": False})  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "iterations": self.iterations,
            "files_changed": self.files_changed,
            "commit": self.commit,
            "criterion": self.criterion,
            "usage": {
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                **({"estimated": True} if self.tokens_estimated else {}),
            },
            "cost": round(self.cost, 6),
            "seconds": round(self.seconds, 3),
            "calls": self.calls,
            "retries": self.retries,
            "candidates": self.candidates,
            "strategy": self.strategy,
            "steps": self.steps,
            "role_usage": self.role_usage,
            "temperatures": self.temperatures,
            "seeds": self.seeds,
            "reason": self.reason,
            "notes": self.notes,
            "run_id": self.run_id,
        }
