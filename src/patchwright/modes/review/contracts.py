"""The project's own checks that the gates do not run: its import contracts.

The gates run what a Python project's ``make test`` mostly runs — ruff with the project's
configuration, mypy where it is configured, the test suite. A project that also keeps
import-linter contracts (``[tool.importlinter]`` in ``pyproject.toml``, ``.importlinter``, or
``[importlinter]`` in ``setup.cfg``; patchwright does) has them checked too: ``lint-imports``
from the repository's own environment (else the one patchwright runs in, with the
repository's code first on ``PYTHONPATH``), once at the start and then after every change
whose gates passed, as the ``contracts`` gate: a contract kept at the start and broken after
the change fails it, like any new problem; a contract broken already does not.
"""

from __future__ import annotations

import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify import GateResult, Problem
from patchwright.verify.model import Status
from patchwright.verify.tools import ini_section, pyproject_tool, repo_python

NAME = "contracts"
TIMEOUT = 300.0
_RUN = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
_BROKEN = re.compile(r"^(.+?)\s+BROKEN\s*$", re.M)


def contracts_file(root: Path) -> str | None:
    """Where the repository declares import-linter contracts, or None."""
    if (root / ".importlinter").is_file():
        return ".importlinter"
    if pyproject_tool(root, "importlinter"):
        return "pyproject.toml"
    return "setup.cfg" if ini_section(root / "setup.cfg", "importlinter") else None


def _python(root: Path) -> str:
    """The repository's interpreter when it has import-linter, else ours."""
    own = Path(repo_python(root))
    return str(own) if (own.parent / "lint-imports").is_file() else sys.executable


@dataclass
class Contracts:
    """The import contracts of one repository: their state at the start, and the gate."""

    root: Path
    sandbox: Sandbox
    config: str  # where they are declared
    broken: set[str] | None = None  # broken at the start (None: could not be checked)
    note: str = ""
    seconds: float = field(default=0.0, repr=False)

    @classmethod
    def of(cls, root: Path, sandbox: Sandbox) -> Contracts | None:
        """The repository's contracts, checked once now; None when it keeps none."""
        config = contracts_file(root)
        if config is None:
            return None
        contracts = cls(root, sandbox, config)
        contracts.refresh()
        return contracts

    def refresh(self) -> None:
        """Check them again: the tree they are judged against changed."""
        self.broken, why = self._run()
        self.note = f"import contracts not checked: {why}" if why else ""

    def _run(self) -> tuple[set[str] | None, str]:
        """The broken contracts now (None and why when lint-imports could not say)."""
        started = time.monotonic()
        src = [str(self.root / "src")] if (self.root / "src").is_dir() else []
        cmd = " ".join(shlex.quote(x) for x in [_python(self.root), "-c", _RUN, "--no-cache"])
        env = {"PYTHONPATH": ":".join([*src, str(self.root)])}
        result = self.sandbox.run(cmd, timeout=TIMEOUT, cwd=self.root, extra_env=env)
        self.seconds = time.monotonic() - started
        output = f"{result.stdout}\n{result.stderr}".strip()
        if result.exit_code == 0:
            return set(), ""
        broken = set(_BROKEN.findall(output))
        if result.exit_code == 1 and broken:
            return broken, ""
        tail = " ".join(output.splitlines()[-3:])[:300]
        return None, f"lint-imports ended with {result.exit_code}: {tail or 'no output'}"

    def gate(self) -> GateResult:
        """The contracts after a change, against the start."""
        if self.broken is None:
            return GateResult(NAME, "skipped", reason=self.note)
        broken, why = self._run()
        if broken is None:
            return GateResult(NAME, "could_not_run", seconds=self.seconds, reason=why)
        new = [Problem(NAME, self.config, None, "broken", n) for n in sorted(broken - self.broken)]
        fixed = [
            Problem(NAME, self.config, None, "broken", n) for n in sorted(self.broken - broken)
        ]
        status: Status = "failed" if new else "passed"
        names = ", ".join(p.message for p in new)
        return GateResult(NAME, status, new, fixed, seconds=self.seconds,
                          reason=f"import contracts broken by the change: {names}" if new else None)  # fmt: skip
