"""What both strategies share: the result of a solve, how it asks the user to approve a
change, and the transaction it writes through. The pipeline's solver
(:mod:`patchwright.agent.pipeline_solver`) and the agent's (:mod:`patchwright.agent.agent_solver`)
both return a :class:`SolveResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

from patchwright.agent.checker import Check

Decision = Literal["apply", "skip", "regenerate", "edited"]
Changes = dict[str, bytes | None]


class Approver(Protocol):
    """Shown the verified diff (and, after a user's own edit, what the gates found wrong
    with it), answers: apply it, skip the task, regenerate, or "edited" (the user changed
    the files on disk: re-verify and ask again)."""

    def __call__(self, diff: str, problems: str = "") -> Decision: ...


class Txn(Protocol):
    def stage(self, changes: Changes) -> None: ...
    def write(self) -> None: ...
    def rollback(self) -> None: ...
    def commit(self, label: str = "") -> str: ...


SolveOutcome = Literal["solved", "unverified", "failed", "skipped"]


@dataclass
class SolveResult:
    outcome: SolveOutcome
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
    commit_message: str = ""  # agent mode: the reviewer's message
