"""patchwright.verify: gates that prove a change — syntax, lint, types, tests, a smoke run —
each compared with a baseline taken before the change, so that only *new* problems block."""

from __future__ import annotations

from patchwright.verify.baseline import Baseline, take_baseline
from patchwright.verify.context import Gate, GateContext
from patchwright.verify.detect import detect_test_command
from patchwright.verify.gates import default_gates, run_gates
from patchwright.verify.lint import LintGate
from patchwright.verify.model import GateResult, Problem, Status, diff_problems
from patchwright.verify.smoke import SmokeOutcome, find_entry
from patchwright.verify.smokegate import SmokeGate
from patchwright.verify.summary import summarize_failures
from patchwright.verify.syntax import SyntaxGate
from patchwright.verify.testgate import TestsGate
from patchwright.verify.testrun import TestCase, TestRun, run_tests
from patchwright.verify.typecheck import TypesGate

__all__ = [
    "Baseline",
    "Gate",
    "GateContext",
    "GateResult",
    "LintGate",
    "Problem",
    "SmokeGate",
    "SmokeOutcome",
    "Status",
    "SyntaxGate",
    "TestCase",
    "TestRun",
    "TestsGate",
    "TypesGate",
    "default_gates",
    "detect_test_command",
    "diff_problems",
    "find_entry",
    "run_gates",
    "run_tests",
    "summarize_failures",
    "take_baseline",
]
