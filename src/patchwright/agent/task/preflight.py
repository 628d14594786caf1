"""Before the first model call: can the task's checks run here, and do they already hold?

``patchwright run`` stops (:class:`RunError`, exit 2) when a command of the criterion cannot
start in the sandbox — the test command (``--test-cmd``, ``[run] test_cmd`` or the detected
runner) or a ``--done-when`` command: not found, not executable, pytest not installed,
refused by the sandbox. No change could then be verified, so no model call is spent on one. A
``--done-when`` command that is a file of the repository not written yet is let through: the
task may be to write it.

Each ``--done-when`` command runs once here, before any change: one that already exits 0 still
has to hold after the change but cannot prove the task (``Criterion.holding``); how the
others fail is shown to the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.agent.request import RunError
from patchwright.agent.session import Session
from patchwright.sandbox import ExecResult
from patchwright.verify import Baseline
from patchwright.verify.tools import could_not_start

_MISSING = re.compile(r"([^\s:]+): (?:command not found|No such file or directory|not found)")


@dataclass(frozen=True)
class Probe:
    """A ``--done-when`` command run before any change."""

    cmd: str
    exit_code: int | None
    output: str
    unstarted: str | None = None  # why it could not start

    @property
    def held(self) -> bool:
        return self.exit_code == 0


def require_test_cmd_starts(baseline: Baseline, *, given: bool) -> None:
    """Stop the run when the baseline's test command could not start (``given``: the user
    chose it, rather than it being detected)."""
    run = baseline.tests
    why = run.cannot_start if run is not None else None
    if run is None or why is None:
        return
    fix = (
        "fix --test-cmd (or [run] test_cmd) so that it runs here"
        if given
        else "install the test runner where the repository's Python (its .venv) finds it, "
        "or pass --test-cmd with a command that runs here"
    )
    raise RunError(
        f"the test command `{run.command}` cannot start in the sandbox ({why}), so no change "
        f"could be checked: {fix}; nothing was changed"
    )


def probe_done_when(session: Session, commands: Sequence[str]) -> list[Probe]:
    """Run each ``--done-when`` command once before any change; stop the run when one cannot
    start."""
    probes = []
    for cmd in commands:
        result = session.sandbox.run(cmd, cwd=session.root, timeout=session.command_timeout)
        output = (result.stdout + "\n" + result.stderr).strip()
        probe = Probe(cmd, result.exit_code, output, _unstarted(result, session.root))
        if probe.unstarted:
            raise RunError(
                f"--done-when `{cmd}` cannot start in the sandbox ({probe.unstarted}), so it "
                "could never say the task is done: fix the command (a program on PATH, a file "
                "of the repository) or leave it out; nothing was changed"
            )
        probes.append(probe)
    return probes


def _unstarted(result: ExecResult, root: Path) -> str | None:
    if result.exit_code is None and result.blocked_by:
        return f"the sandbox refused it ({result.blocked_by})"
    why = could_not_start(result)
    missing = _MISSING.search(why or "")
    if why and missing and "/" in missing.group(1):
        path = (root / missing.group(1)).resolve()
        if path == root or root in path.parents:
            return None  # a script of the repository the task may write
    return why


def held(probes: Sequence[Probe]) -> list[str]:
    """The commands that already exit 0 before any change."""
    return [p.cmd for p in probes if p.held]


def done_when_report(probes: Sequence[Probe]) -> str:
    """How each ``--done-when`` command fails before any change (what done must fix)."""
    return "\n\n".join(
        f"`{p.cmd}` exits {p.exit_code}:\n{p.output[-1500:]}" for p in probes if not p.held
    )
