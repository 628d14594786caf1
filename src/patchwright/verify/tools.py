"""Finding the external tools the gates run (ruff, mypy, node, bash, go, cargo, npm).

Python tools come from the environment patchwright runs in (the ``ruff`` next to
``sys.executable``, or ``python -m mypy``), so that the versions are the locked ones. Other
tools are looked up on ``PATH`` at call time. A tool that is not there makes its gate
``skipped`` with the reason, never a silent pass.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from patchwright.sandbox import ExecResult, Sandbox


def which(name: str) -> str | None:
    """Absolute path of ``name`` on the current ``PATH`` (read now, not at import)."""
    return shutil.which(name, path=os.environ.get("PATH", os.defpath))


def python_tool(module: str, script: str | None = None) -> list[str] | None:
    """Argv prefix that runs a Python tool of our environment, or None when it is missing.

    Prefers the console script next to ``sys.executable`` (no interpreter start-up cost for
    ruff, which is a native binary), else ``python -m module``.
    """
    script = script or module
    beside = Path(sys.executable).parent / script
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    if importlib.util.find_spec(module) is not None:
        return [sys.executable, "-m", module]
    found = which(script)
    return [found] if found else None


def repo_python(root: Path) -> str:
    """The interpreter that sees the repository's dependencies: its own ``.venv`` or
    ``venv`` when present, otherwise the one patchwright runs in."""
    for name in (".venv", "venv"):
        candidate = root / name / "bin" / "python"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return sys.executable


def cache_dir(root: Path, name: str) -> Path:
    """A scratch directory under ``.patchwright/cache/`` (ignored by git and the walker)."""
    path = root / ".patchwright" / "cache" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def scratch_dir(sandbox: Sandbox, name: str) -> Path:
    """A directory that tools run in the sandbox may write (its private TMPDIR): reports and
    caches. The repository's ``.patchwright/`` is read-only to them."""
    path = Path(sandbox.tmpdir) / "patchwright" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def scratch_copies(root: Path, texts: Mapping[str, str]) -> Iterator[dict[str, Path]]:
    """Write ``texts`` (relative path -> old text) under ``.patchwright/cache/old/`` for tools
    that need a file on disk, and remove them afterwards (so that no test runner or linter
    walking the repository ever meets them)."""
    base = cache_dir(root, "old")
    made: dict[str, Path] = {}
    try:
        for rel, text in texts.items():
            copy = base / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
            made[rel] = copy
        yield made
    finally:
        shutil.rmtree(base, ignore_errors=True)


def describe_failure(result: ExecResult) -> str | None:
    """Why a tool run produced nothing usable (blocked, timed out, killed), or None."""
    if result.blocked_by:
        return f"the sandbox blocked it ({result.blocked_by})"
    if result.timed_out:
        return f"timed out after {result.seconds:.0f}s"
    if result.killed_by:
        return f"killed ({result.killed_by})"
    return None


def tail(text: str, lines: int = 30, chars: int = 4000) -> str:
    """The last ``lines`` lines of ``text``, at most ``chars`` characters."""
    kept = "\n".join(text.rstrip().splitlines()[-lines:])
    return kept[-chars:]
