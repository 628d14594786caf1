"""Which code each row came from: patchwright's commit, Aider's release.

A benchmark of 64 tasks through two tools runs for hours and is resumed from its ``--out``
file, often on another day and another machine (results are kept in ``benchmarks/results/``
and committed). Rows are only comparable when they came from one version of each tool, so
every row names it and a resumed run refuses to mix versions unless told to.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tool_aider import AIDER_VERSION

UNKNOWN = "unknown"


def patchwright_version(env: dict[str, str] | None = None) -> str:
    """The commit of the patchwright that ``python -m patchwright`` imports here (a frozen
    clone on ``PYTHONPATH`` included), ``+dirty`` when its sources differ from the commit."""
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import patchwright, os; print(os.path.dirname(patchwright.__file__))",
        ],
        capture_output=True,
        text=True,
        env=env or dict(os.environ),
        check=False,
    ).stdout.strip()
    if not where:
        return UNKNOWN
    src = Path(where)
    head = _git(src, "rev-parse", "--short=12", "HEAD")
    if head is None:
        return UNKNOWN
    dirty = _git(src, "status", "--porcelain", "--", ".")
    return f"{head}+dirty" if dirty else head


def _git(cwd: Path, *args: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


def versions(tools: list[str]) -> dict[str, str]:
    """Each tool's version for this run."""
    known = {"aider": f"aider-chat {AIDER_VERSION}"}
    return {t: patchwright_version() if t == "patchwright" else known[t] for t in tools}


def mixed(rows: list[dict[str, Any]], current: dict[str, str]) -> list[str]:
    """One line per tool whose earlier rows came from another version than this run's."""
    out = []
    for tool, version in current.items():
        seen = sorted(
            {str(r.get("version", UNKNOWN)) for r in rows if r.get("tool", "patchwright") == tool}
        )
        others = [v for v in seen if v != version]
        if others:
            out.append(f"{tool}: earlier rows from {', '.join(others)}; this run is {version}")
    return out


def summary(rows: list[dict[str, Any]]) -> str:
    """``tool version (N rows), …`` for the report."""
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (str(r.get("tool", "patchwright")), str(r.get("version", UNKNOWN)))
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{tool} {version} ({n} rows)" for (tool, version), n in counts.items())
