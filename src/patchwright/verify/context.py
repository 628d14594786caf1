"""What a gate is: the protocol every gate follows, and the context it is run with — the
tree to check, how to run tools, the baseline to compare with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from patchwright.sandbox import Sandbox
from patchwright.verify.baseline import Baseline
from patchwright.verify.model import GateResult


@dataclass
class GateContext:
    """Everything a gate needs: the tree to check, how to run tools, and the baseline."""

    root: Path
    sandbox: Sandbox
    baseline: Baseline
    touched: Sequence[str]
    test_cmd: str | None = None
    test_timeout: float = 600.0
    smoke_seconds: float | None = None


class Gate(Protocol):
    """One check of a change. ``run`` never raises for findings; it reports them."""

    name: str

    def run(self, ctx: GateContext) -> GateResult: ...
