"""The runtime smoke gate: start the program for a few seconds and fail on a traceback.

The entry point is found in this order: the first ``[project.scripts]`` console script of
pyproject.toml, a package with ``__main__.py`` (top level or under ``src/``), then
``__main__.py``, ``main.py`` or ``app.py`` at the root. The program gets an empty stdin and
is stopped after N seconds; still running then counts as alive. A crash already present at
baseline time (same last traceback line) does not fail the gate. A program that could not
start (the sandbox refused the command, its interpreter cannot be executed) makes the gate
``could_not_run``; what the sandbox denied while it ran counts as a crash.
"""

from __future__ import annotations

import re
import shlex
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.baseline import SmokeOutcome
from patchwright.verify.model import GateContext, GateResult, Problem
from patchwright.verify.tools import could_not_start, repo_python, tail

NAME = "smoke"
_TRACEBACK = "Traceback (most recent call last):"
_SCRIPT = re.compile(r"^([\w.]+):([\w.]+)$")


def find_entry(root: Path) -> tuple[str, list[str]] | None:
    """``(description, argv)`` of the program's entry point, or None."""
    python = repo_python(root)
    script = _console_script(root)
    if script:
        name, module, func = script
        code = f"import sys; from {module} import {func.split('.')[0]} as f; sys.exit(f())"
        if "." in func:
            code = f"import sys, {module} as m; sys.exit(m.{func}())"
        return f"console script {name} ({module}:{func})", [python, "-c", code]
    for base in (root, root / "src"):
        if not base.is_dir():
            continue
        for main in sorted(base.glob("*/__main__.py")):
            if (main.parent / "__init__.py").is_file():
                return f"python -m {main.parent.name}", [python, "-m", main.parent.name]
    for name in ("__main__.py", "main.py", "app.py"):
        if (root / name).is_file():
            return name, [python, name]
    return None


def _console_script(root: Path) -> tuple[str, str, str] | None:
    path = root / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        scripts = (
            tomllib.loads(path.read_text(encoding="utf-8")).get("project", {}).get("scripts", {})
        )
    except (OSError, ValueError, AttributeError):
        return None
    for name, target in (scripts or {}).items():
        m = _SCRIPT.match(str(target).strip())
        if m:
            return str(name), m.group(1), m.group(2)
    return None


def _env(root: Path, extra_env: Mapping[str, str] | None) -> dict[str, str]:
    env = dict(extra_env or {})
    if "PYTHONPATH" not in env:
        src = root / "src"
        env["PYTHONPATH"] = f"{src}:{root}" if src.is_dir() else str(root)
    return env


def run_smoke(
    root: Path, sandbox: Sandbox, seconds: float, *, extra_env: Mapping[str, str] | None = None
) -> SmokeOutcome:
    """Run the entry point for ``seconds``; ``crashed`` when it printed a traceback or died
    of a signal."""
    entry = find_entry(root)
    if entry is None:
        return SmokeOutcome(None, False, "")
    label, argv = entry
    result = sandbox.run(argv, timeout=seconds, cwd=root, stdin="", extra_env=_env(root, extra_env))
    output = (result.stdout + "\n" + result.stderr).strip()
    unstarted = could_not_start(result)
    if result.exit_code is None and result.blocked_by:  # refused before it started
        unstarted = f"the sandbox refused it ({result.blocked_by})"
    if unstarted:
        return SmokeOutcome(f"{label}: {shlex.join(argv)}", False, tail(output, 20, 2000),
                            unstarted)  # fmt: skip
    signal = (result.killed_by or "").startswith("signal:")
    crashed = _TRACEBACK in output or signal or result.blocked_by is not None
    why = output if crashed else ""
    if result.blocked_by:
        why = f"blocked by the sandbox ({result.blocked_by})\n{output}"
    return SmokeOutcome(f"{label}: {shlex.join(argv)}", crashed, tail(why, 20, 2000))


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
