"""Running the gates in order — syntax → lint → types → tests (→ smoke) — against a baseline."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.baseline import Baseline
from patchwright.verify.context import Gate, GateContext
from patchwright.verify.lint import LintGate
from patchwright.verify.model import GateResult
from patchwright.verify.smokegate import SmokeGate
from patchwright.verify.syntax import SyntaxGate
from patchwright.verify.testgate import TestsGate
from patchwright.verify.typecheck import TypesGate


def default_gates(*, smoke: bool = False) -> list[Gate]:
    """The standard gates in their order; the smoke gate only when asked for."""
    gates: list[Gate] = [SyntaxGate(), LintGate(), TypesGate(), TestsGate()]
    if smoke:
        gates.append(SmokeGate())
    return gates


def run_gates(
    root: Path,
    sandbox: Sandbox,
    baseline: Baseline,
    *,
    touched: Sequence[str],
    test_cmd: str | None = None,
    stop_on_failure: bool = True,
    smoke_seconds: float | None = None,
    test_timeout: float = 600.0,
    gates: Sequence[Gate] | None = None,
) -> list[GateResult]:
    """Run the gates on the ``touched`` files (paths relative to ``root``) and the test suite.

    Only problems the baseline did not have fail a gate. With ``stop_on_failure`` the gates
    after one that failed or could not run are reported ``skipped`` (not run) rather than run
    on a tree already known bad or unverifiable. A gate whose tool could not start or crashed
    is ``could_not_run``; a gate that raises is ``error`` with the exception — never a pass.
    """
    ctx = GateContext(
        root=Path(root).resolve(),
        sandbox=sandbox,
        baseline=baseline,
        touched=[t.replace("\\", "/").removeprefix("./") for t in touched],
        test_cmd=test_cmd,
        test_timeout=test_timeout,
        smoke_seconds=smoke_seconds,
    )
    chosen = list(gates) if gates is not None else default_gates(smoke=bool(smoke_seconds))
    results: list[GateResult] = []
    failed: str | None = None
    for gate in chosen:
        if failed and stop_on_failure and not _explains(gate.name, results):
            results.append(GateResult(gate.name, "skipped", reason=f"not run: {failed}"))
            continue
        started = time.monotonic()
        try:
            result = gate.run(ctx)
        except Exception as exc:  # a gate bug must not pass silently nor crash the agent
            result = GateResult(gate.name, "error", output=repr(exc),
                                seconds=time.monotonic() - started,
                                reason=f"the {gate.name} gate crashed: {exc}")  # fmt: skip
        results.append(result)
        if not result.ok and failed is None:
            what = "could not run" if result.could_not_run else "failed"
            failed = f"the {gate.name} gate {what}"
    return results


# Languages whose compiler the types gate runs (go vet, cargo check, tsc), by suffix.
COMPILED = (".go", ".rs", ".ts", ".tsx", ".mts", ".cts")


def _explains(gate: str, results: Sequence[GateResult]) -> bool:
    """Whether ``gate`` runs although an earlier one failed: the types gate after a syntax
    failure in files its compiler reads, to tell what the parse error is. tree-sitter says
    ``syntax error near "b'"``; rustc says ``character literal may only contain one
    codepoint`` and how to write a byte string (polyglot Rust scale-generator: two replies
    refused on the first account alone)."""
    failed = [r for r in results if not r.ok]
    if gate != "types" or [r.name for r in failed] != ["syntax"] or not failed[0].new_problems:
        return False
    return all(p.path.endswith(COMPILED) for p in failed[0].new_problems)
