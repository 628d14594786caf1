"""``InstanceSandbox``: the sandbox one task's commands run in, over an instance directory
that holds the repository checkout (``repo/``) and, for a built environment, its
virtualenv (``.venv/``) — so both are visible inside bubblewrap and nothing else of the
machine's caches is writable. Commands run in the repository by default, with the
environment's interpreter first on ``PATH``."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from patchwright.sandbox import ExecResult, Limits, Sandbox

# Test logs of large suites run to megabytes; a test run may take many minutes.
INSTANCE_LIMITS = Limits(cpu_seconds=3600, output_bytes=16 * 1024 * 1024)


def import_roots(repo: Path) -> list[Path]:
    """Where the repository's packages import from: ``src/`` (when it holds packages) and
    the checkout itself."""
    src = repo / "src"
    if src.is_dir() and any((p / "__init__.py").is_file() for p in src.iterdir() if p.is_dir()):
        return [src, repo]
    return [repo]


class InstanceSandbox(Sandbox):
    """A ``Sandbox`` rooted at an instance directory; see the module docstring. It is an
    ``Environment``: the gates and tools that take a sandbox run through it unchanged."""

    def __init__(
        self,
        home: Path,
        repo: Path,
        *,
        kind: str,
        bin_dir: Path | None = None,
        python_path: Sequence[Path] = (),
        notes: Sequence[str] = (),
        limits: Limits | None = None,
        allow_net: bool = False,
    ) -> None:
        super().__init__(home, allow_net=allow_net, limits=limits or INSTANCE_LIMITS)
        self.kind = kind
        self.notes = list(notes)
        self._repo = Path(repo).resolve()
        env: dict[str, str] = {}
        if bin_dir is not None:
            env["PATH"] = os.pathsep.join([str(bin_dir), os.environ.get("PATH", os.defpath)])
            if (bin_dir.parent / "pyvenv.cfg").is_file():
                env["VIRTUAL_ENV"] = str(bin_dir.parent)
        if python_path:
            env["PYTHONPATH"] = os.pathsep.join(str(p) for p in python_path)
        self.variables = env

    @property
    def repo(self) -> Path:
        return self._repo

    def run(
        self,
        cmd: str | Sequence[str],
        *,
        timeout: float = 120.0,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
        stdin: str | None = None,
    ) -> ExecResult:
        merged = {**self.variables, **(extra_env or {})}
        return super().run(
            cmd, timeout=timeout, cwd=cwd or self._repo, extra_env=merged, stdin=stdin
        )


def host_environment(home: Path, repo: Path, python: Path | None = None) -> InstanceSandbox:
    """The ``host`` environment: an interpreter that is already set up (default: the one
    patchwright runs in), the checkout first on ``PYTHONPATH``; nothing is installed."""
    exe = Path(python or sys.executable)
    note = f"host environment: {exe} as it is, nothing installed"
    return InstanceSandbox(
        home, repo, kind="host", bin_dir=exe.parent, python_path=import_roots(repo), notes=[note]
    )
