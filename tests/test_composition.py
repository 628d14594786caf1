"""One composition root: modes get their model, sandbox and index from a Session and never
build their own (a mode that wired its own model once lost the cost caps)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "patchwright"
BUILDERS = {
    "make_model",
    "build_model",
    "Router",
    "Sandbox",
    "sandbox_for",
    "RepoIndex",
    "LocalModel",
}


def constructed(path: Path) -> list[str]:
    """Names of model/sandbox/index builders that ``path`` calls."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in BUILDERS:
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {name}(...)")
    return found


def test_no_mode_or_front_end_builds_a_model_a_sandbox_or_an_index() -> None:
    offenders = [
        hit
        for folder in ("modes", "ui")
        if (SRC / folder).is_dir()
        for path in sorted((SRC / folder).rglob("*.py"))
        for hit in constructed(path)
    ]
    assert offenders == [], "build these through patchwright.agent.session.Session instead"


def test_the_check_sees_a_violation() -> None:
    sample = SRC / "agent" / "session.py"  # the one place allowed to build them
    assert any("sandbox_for" in hit or "build_model" in hit for hit in constructed(sample))
