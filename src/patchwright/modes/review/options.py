"""What a review run is asked to do (its options), what it reports (its summary), and the
review as a :class:`TaskRequest` for the parts it shares with ``patchwright run``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from patchwright.agent.request import Overrides, TaskRequest, build_request
from patchwright.config import Settings
from patchwright.llm.ledger import Totals
from patchwright.modes.review.checkpoint import CheckpointOptions
from patchwright.modes.review.propose import ProposalOutcome, Tuning

Focus = Literal["bugs", "features", "both"]
ReviewOutcome = Literal["finished", "done", "stopped", "interrupted", "error"]


@dataclass
class ReviewOptions:
    repo: Path
    iterations: int = 0  # 0: until stopped, or until every file is reviewed at its content
    targets: list[str] = field(default_factory=list)
    focus: Focus = "both"
    checkpoint: CheckpointOptions = field(default_factory=CheckpointOptions)
    tuning: Tuning = field(default_factory=Tuning)
    cooldown: float = 0.0
    memory_in_repo: bool = False
    test_cmd: str | None = None
    commit: bool = True
    no_git: bool = False
    analysis_calls: int = 12


@dataclass
class ReviewSummary:
    outcome: ReviewOutcome = "finished"
    run_id: str = ""
    iterations: int = 0
    proposals: list[ProposalOutcome] = field(default_factory=list)
    usage: Totals = field(default_factory=Totals)
    seconds: float = 0.0
    reason: str = ""
    queue: list[str] = field(default_factory=list)
    memory_dir: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def starting(cls, memory_dir: str, settings: Settings) -> ReviewSummary:
        """A review's summary before its first iteration: what the settings set that it
        does not use is noted first."""
        return cls(memory_dir=memory_dir, notes=unused_settings(settings))

    def of(self, status: str) -> list[dict[str, Any]]:
        return [p.to_json() for p in self.proposals if p.status == status]

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "iterations": self.iterations,
                "accepted": self.of("accepted"), "rejected": self.of("rejected"),
                "skipped": self.of("skipped"), "failed": self.of("failed"),
                "clean": [p.target for p in self.proposals if p.status == "clean"],
                "cascade_left": self.queue, "usage": self.usage.to_dict(),
                "seconds": round(self.seconds, 3), "reason": self.reason,
                "notes": self.notes, "memory_dir": self.memory_dir,
                "run_id": self.run_id, "edit_formats": self.by_format()}  # fmt: skip

    def by_format(self) -> dict[str, dict[str, int]]:
        """How the model's proposals ended, by what they were about and the edit format
        asked for (``"tests/whole": {"accepted": 1, "failed": 2}``): which format lands."""
        table: dict[str, dict[str, int]] = {}
        for p in self.proposals:
            if p.edit_format:
                row = table.setdefault(f"{p.about}/{p.edit_format}", {})
                row[p.status] = row.get(p.status, 0) + 1
        return table


def review_request(opts: ReviewOptions, settings: Settings) -> TaskRequest:
    """The review as a request: what is reviewed, with the settings and the review's flags on
    top — the test command, the edit format, git and the commit, the test timeout, and
    ``1 + heal`` tries per proposal (each proposal's goal is the task its solver works on)."""
    where = ", ".join(opts.targets) or "the repository"
    task = f"Review {where} and improve it (focus: {opts.focus}), one verified change at a time"
    tuning = opts.tuning
    overrides = Overrides(test_cmd=opts.test_cmd, max_iter=1 + tuning.heal,
                          edit_format=tuning.edit_format, test_timeout=tuning.test_timeout,
                          no_git=opts.no_git, commit=None if opts.commit else False,
                          yes=opts.checkpoint.yes)  # fmt: skip
    return build_request(task, settings, overrides)


def unused_settings(settings: Settings) -> list[str]:
    """What the user's config sets that a review does not use, as notes for its summary: the
    review makes each change through its own pipeline (propose, check, repair) and tries
    ``1 + --heal`` times per proposal."""
    agent, run = settings.agent, settings.run
    unused = [
        f"[agent] {key} = {getattr(agent, key)!r}".replace("'", '"')
        for key in ("strategy", "plan", "max_rejections")
        if key in agent.model_fields_set
        and not (key == "strategy" and agent.strategy == "pipeline")
    ]
    notes = []
    if unused:
        notes.append(f"{', '.join(unused)} not used: a review makes each change through its own "
                     "pipeline (propose, check, repair); they apply to run and chat")  # fmt: skip
    if "max_iter" in run.model_fields_set:
        notes.append(f"[run] max_iter = {run.max_iter} not used: a review tries each proposal "
                     "1 + --heal times")  # fmt: skip
    return notes
