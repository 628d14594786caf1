"""The runtime smoke gate: start the program for a few seconds (see
:mod:`patchwright.verify.smoke` for how its entry point is found) and fail on a traceback.

A crash already present at baseline time (same last traceback line) does not fail the gate.
A program that could not start (the sandbox refused the command, its interpreter cannot be
executed) makes the gate ``could_not_run``; what the sandbox denied while it ran counts as a
crash.
"""

from __future__ import annotations

import time

from patchwright.verify.context import GateContext
from patchwright.verify.model import GateResult, Problem
from patchwright.verify.smoke import run_smoke

NAME = "smoke"


def _last_line(output: str) -> str:
    lines = [x for x in output.strip().splitlines() if x.strip()]
    return lines[-1].strip() if lines else ""


class SmokeGate:
    """Starts the program briefly; see the module docstring."""

    name = NAME

    def run(self, ctx: GateContext) -> GateResult:
        started = time.monotonic()
        seconds = ctx.smoke_seconds or 3.0
        now = run_smoke(ctx.root, ctx.sandbox, seconds)
        elapsed = time.monotonic() - started
        if now.entry is None:
            return GateResult(NAME, "skipped", seconds=elapsed,
                              reason="no entry point found (console script, __main__.py, "
                                     "main.py or app.py)")  # fmt: skip
        if now.could_not_run:
            return GateResult(NAME, "could_not_run", output=now.output, seconds=elapsed,
                              reason=f"{now.entry} could not start: {now.could_not_run}")  # fmt: skip
        base = ctx.baseline.smoke
        problem = Problem(NAME, now.entry.split(":")[0], None, "crash", _last_line(now.output),
                          now.output)  # fmt: skip
        if not now.crashed:
            fixed = []
            if base is not None and base.crashed:
                fixed = [Problem(NAME, problem.path, None, "crash", _last_line(base.output))]
            return GateResult(NAME, "passed", [], fixed, seconds=elapsed, reason=now.entry)
        if base is not None and base.crashed and _last_line(base.output) == problem.message:
            return GateResult(NAME, "passed", output=now.output, seconds=elapsed,
                              reason=f"{now.entry} crashed the same way at baseline")  # fmt: skip
        reason = None if base is not None else "no baseline smoke run: the crash counts as new"
        return GateResult(NAME, "failed", [problem], [], now.output, elapsed, reason)
