"""Running the program briefly: its entry point, found in this order — the first
``[project.scripts]`` console script of pyproject.toml, a package with ``__main__.py`` (top
level or under ``src/``), then ``__main__.py``, ``main.py`` or ``app.py`` at the root — started
with an empty stdin and stopped after N seconds (still running then counts as alive). The
smoke gate (:mod:`patchwright.verify.smokegate`) compares a run with the baseline's."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.tools import could_not_start, repo_python, tail

_TRACEBACK = "Traceback (most recent call last):"
_SCRIPT = re.compile(r"^([\w.]+):([\w.]+)$")


@dataclass(frozen=True)
class SmokeOutcome:
    """How the entry point behaved at baseline time (see ``smoke``); ``could_not_run`` says
    why it never started (the sandbox refused it, its interpreter cannot be executed)."""

    entry: str | None
    crashed: bool
    output: str
    could_not_run: str | None = None


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
