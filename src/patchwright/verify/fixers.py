"""Fixes a tool makes without a model: ruff's safe fixes, ``ruff format``, ESLint ``--fix``,
``gofmt``.

Each tool runs in the sandbox as the lint gate runs it — the locked ruff, the project's own
ESLint from ``node_modules/.bin`` — with the project's configuration, and writes nothing:
ruff reads a file's text on stdin under its real name and prints the fixed text; ESLint runs
with ``--fix-dry-run`` and reports the fixed text. ruff uses the gate's rule selection (the
project's configuration, or the fatal-error rules where it has none), so what it fixes is
what the gate reports, and never its unsafe fixes (``--no-unsafe-fixes`` overrides a
configuration that allows them). A tool that cannot run, or whose output was cut by the
sandbox's output cap, raises :class:`ToolBroken`: a fix is applied whole or not at all.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from patchwright.sandbox import ExecResult, Sandbox
from patchwright.verify.lint import ERRORS_ONLY, has_ruff_config
from patchwright.verify.tools import ToolBroken, tail, unusable

CHUNK = 100  # files per ruff listing (its JSON stays under the sandbox's output cap)
_UNFORMATTED = re.compile(r"^(.+?):\d+:\d+: unformatted\b", re.M)


def _select(root: Path) -> list[str]:
    return [] if has_ruff_config(root) else ["--select", ERRORS_ONLY]


def _output(tool: str, result: ExecResult, ok: Sequence[int] = (0,)) -> str:
    if why := unusable(tool, result):
        raise ToolBroken(why)
    if result.exit_code not in ok:
        raise ToolBroken(f"{tool} exited {result.exit_code}: {tail(result.stderr, 8)}")
    if result.truncated:
        raise ToolBroken(f"{tool} printed more than the sandbox keeps")
    return result.stdout


def _relative(root: Path, name: str) -> str:
    """A tool's file name (absolute, or relative to ``root`` where it ran) as a repository
    path."""
    path = Path(name) if Path(name).is_absolute() else root / name
    with contextlib.suppress(ValueError):
        return path.resolve().relative_to(root.resolve()).as_posix()
    return name


def ruff_safe_fixes(
    root: Path, sandbox: Sandbox, ruff: list[str], paths: Sequence[str]
) -> dict[str, list[str]]:
    """The rule codes ruff has a safe fix for, per file (files without one left out)."""
    found: dict[str, list[str]] = {}
    for start in range(0, len(paths), CHUNK):
        argv = [*ruff, "check", "--output-format", "json", "--no-cache", "--force-exclude",
                "--exit-zero", "--no-fix", "--no-unsafe-fixes", *_select(root), "--",
                *paths[start : start + CHUNK]]  # fmt: skip
        stdout = _output("ruff", sandbox.run(argv, cwd=root, timeout=120))
        try:
            items = json.loads(stdout or "[]")
        except json.JSONDecodeError as exc:
            raise ToolBroken(f"ruff printed no JSON ({exc}): {tail(stdout, 5)}") from None
        for item in items:
            fix = item.get("fix")
            if isinstance(fix, dict) and fix.get("applicability") == "safe":
                path = _relative(root, str(item.get("filename", "")))
                found.setdefault(path, []).append(str(item.get("code") or "ruff"))
    return found


def ruff_fixed(root: Path, sandbox: Sandbox, ruff: list[str], path: str, text: str) -> str:
    """``text`` (the content of ``path``) with ruff's safe fixes applied."""
    argv = [*ruff, "check", "--fix", "--no-unsafe-fixes", "--exit-zero", "--no-cache",
            "--force-exclude", "--quiet", *_select(root), "--stdin-filename", path, "-"]  # fmt: skip
    return _output("ruff --fix", sandbox.run(argv, cwd=root, timeout=60, stdin=text))


def ruff_unformatted(
    root: Path, sandbox: Sandbox, ruff: list[str], paths: Sequence[str]
) -> list[str]:
    """The files ``ruff format`` would change."""
    found: list[str] = []
    for start in range(0, len(paths), CHUNK):
        argv = [*ruff, "format", "--check", "--no-cache", "--force-exclude", "--output-format",
                "concise", "--", *paths[start : start + CHUNK]]  # fmt: skip
        stdout = _output("ruff format", sandbox.run(argv, cwd=root, timeout=120), ok=(0, 1))
        found += [_relative(root, m.group(1)) for m in _UNFORMATTED.finditer(stdout)]
    return found


def ruff_formatted(root: Path, sandbox: Sandbox, ruff: list[str], path: str, text: str) -> str:
    """``text`` (the content of ``path``) as ``ruff format`` writes it."""
    argv = [*ruff, "format", "--no-cache", "--force-exclude", "--stdin-filename", path, "-"]
    return _output("ruff format", sandbox.run(argv, cwd=root, timeout=60, stdin=text))


def eslint_fixed(
    root: Path, sandbox: Sandbox, eslint: Path, folder: Path, paths: Sequence[str]
) -> dict[str, str]:
    """The fixed text of each of ``paths`` (repository paths, as on disk) that ESLint's
    ``--fix`` changes, run in ``folder`` (where the project's ESLint config is)."""
    files = [str(root / p) for p in paths]
    argv = [str(eslint), "--fix-dry-run", "--format", "json", *files]
    stdout = _output("eslint --fix", sandbox.run(argv, cwd=folder, timeout=300), ok=(0, 1))
    try:
        reports = json.loads(stdout or "[]")
    except ValueError as exc:
        raise ToolBroken(f"eslint printed no JSON ({exc}): {tail(stdout, 5)}") from None
    fixed: dict[str, str] = {}
    for report in reports if isinstance(reports, list) else []:
        if isinstance(report, dict) and isinstance(report.get("output"), str):
            fixed[_relative(root, str(report.get("filePath", "")))] = report["output"]
    return fixed


def gofmt_formatted(root: Path, sandbox: Sandbox, gofmt: str, text: str) -> str | None:
    """``text`` as ``gofmt`` writes it; None when gofmt cannot parse it (the syntax gate says
    so) or cannot run (the lint gate says so)."""
    result = sandbox.run([gofmt], stdin=text, cwd=root, timeout=60)
    if unusable("gofmt", result) or result.exit_code != 0 or result.truncated:
        return None
    return result.stdout
