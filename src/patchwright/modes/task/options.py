"""What a task is asked with and what it reports: the options of one run (``patchwright run``'s
flags, or what chat, review and SWE-bench fill in) and its summary — the leaf the rest of the
room imports."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

STRATEGIES = ("auto", "pipeline", "agent")

RunOutcome = Literal["solved", "unverified", "failed", "error", "interrupted"]


@dataclass
class RunOptions:
    repo: Path
    task: str
    model: str | None = None
    test_cmd: str | None = None
    done_when: list[str] = field(default_factory=list)
    max_iter: int = 4
    candidates: int | None = None  # None: auto
    strategy: str = "auto"  # auto | pipeline | agent
    plan: bool = True  # agent: run the planner first
    max_rejections: int = 2  # agent: times a change may be sent back to the coder
    edit_format: str = "auto"
    include: list[str] = field(default_factory=list)
    branch: bool = False
    no_git: bool = False
    no_commit: bool = False
    yes: bool = False
    approve_timeout: float | None = None
    push: bool = False
    pr: bool = False
    record: Path | None = None
    test_timeout: float = 180.0


@dataclass
class RunSummary:
    outcome: RunOutcome
    run_id: str
    iterations: int = 0
    files_changed: list[str] = field(default_factory=list)
    commit: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    reason: str = ""
    diff: str = ""
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
            "reason": self.reason,
            "run_id": self.run_id,
        }
