"""What one instance produced: the prediction and everything measured on the way
(``result.json``), and the official predictions line."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

InstanceOutcome = Literal["verified", "unverified", "empty", "error"]


@dataclass
class InstanceResult:
    """``verified``: a candidate passed TNR and a test that failed before any change passes
    with it (the agent's reproduction test; with ``--oracle-tests`` FAIL_TO_PASS);
    ``unverified``: the submitted candidate has no such proof — it passed the repository's
    own tests with no test of the issue to run, or none passed and the closest is submitted;
    ``empty``: no candidate applied; ``error``: the instance could not be run (``reason``
    says why). ``oracle_tests``: the hidden tests chose the prediction (``--oracle-tests``);
    ``checks`` says what ran to choose it."""

    instance_id: str
    model_name: str = ""
    oracle_tests: bool = False
    outcome: InstanceOutcome = "error"
    model_patch: str = ""
    reason: str = ""
    localisation: dict[str, Any] = field(default_factory=dict)
    checks: dict[str, Any] = field(default_factory=dict)
    candidates: list[dict[str, Any]] = field(default_factory=list)
    trials: list[dict[str, Any]] = field(default_factory=list)
    churn: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    agent_steps: int = 0  # model calls of all roles, agent strategy
    cost: float = 0.0
    seconds: float = 0.0
    environment: dict[str, Any] = field(default_factory=dict)
    attempts: int = 1  # 2 when a crashed worker's instance was retried

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["seconds"] = round(self.seconds, 2)
        data["cost"] = round(self.cost, 6)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InstanceResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def prediction(self) -> dict[str, Any]:
        """The official predictions line (``instance_id``, ``model_name_or_path``,
        ``model_patch``), as ``swebench.harness.run_evaluation`` reads it; a prediction the
        hidden tests chose also says ``"oracle_tests": true``."""
        line: dict[str, Any] = {
            "instance_id": self.instance_id,
            "model_name_or_path": self.model_name,
            "model_patch": self.model_patch,
        }
        if self.oracle_tests:
            line["oracle_tests"] = True
        return line
