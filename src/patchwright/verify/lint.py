"""The lint gate: ruff on touched Python files; ``node --check`` and (where the project
configures it) ESLint on touched JavaScript/TypeScript; ``gofmt -l`` on touched Go files.

ruff runs with the repository's own configuration (found from each file's location; the
repository's excludes are honoured with ``--force-exclude``). A repository without one is
checked for fatal errors only (``E9,F63,F7,F82``: syntax errors, invalid comparisons,
misplaced statements, undefined names — the set flake8's docs and Aider's lint use): recent
ruff releases enable style rules by default, and a correct change must not fail a gate for
a nested ``if`` or an unused import. The baseline of a changed file
is the same check of its old text: ruff, ``node --check``, ESLint and gofmt all read it from
stdin under the file's real name (see :mod:`patchwright.verify.langs`). Problems are compared
without line numbers, so only new ones fail the gate.

A ruff that is missing (Python files were touched), cannot start, exits non-zero (a config it
rejects, a crash) or prints no JSON makes the gate ``could_not_run`` with ruff's own error; so
does a ``node --check``, ESLint or gofmt that was blocked, timed out or crashed. node, gofmt
and the project's ESLint are optional: without them the file is left to the syntax gate's
parser, and a note says so.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path

from patchwright.verify.context import GateContext
from patchwright.verify.files import Comparison, current_texts, old_problems
from patchwright.verify.langs.golang import NOT_FORMATTED, gofmt_problems
from patchwright.verify.langs.javascript import (
    eslint_for,
    eslint_problems,
    node_check_problems,
)
from patchwright.verify.model import GateResult, Problem, Status
from patchwright.verify.tools import ToolBroken, python_tool, tail, unusable, which

NAME = "lint"
_PY = (".py", ".pyi")
_JS = (".js", ".mjs", ".cjs")
_ESLINT = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


ERRORS_ONLY = (
    "E9,F63,F7,F82"  # syntax errors, invalid comparisons, misplaced statements, undefined names
)
_CONFIG_FILES = ("ruff.toml", ".ruff.toml")


def has_ruff_config(root: Path) -> bool:
    """True when ruff would find a configuration for files under ``root``."""
    for folder in (root.resolve(), *root.resolve().parents):
        if any((folder / name).is_file() for name in _CONFIG_FILES):
            return True
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            with contextlib.suppress(OSError, UnicodeDecodeError):
                if "[tool.ruff" in pyproject.read_text(encoding="utf-8"):
                    return True
    return False


def _ruff_args(ctx: GateContext, ruff: list[str]) -> list[str]:
    select = [] if has_ruff_config(ctx.root) else ["--select", ERRORS_ONLY]
    return [*ruff, "check", "--output-format", "json", "--no-cache", "--force-exclude",
            "--exit-zero", "--no-fix", *select]  # fmt: skip


def _parse_ruff(ctx: GateContext, stdout: str, stdin_name: str | None = None) -> list[Problem]:
    try:
        items = json.loads(stdout or "[]")
    except json.JSONDecodeError as exc:
        raise ToolBroken(f"ruff printed no JSON ({exc}): {tail(stdout, 5)}") from None
    root = ctx.root.resolve()
    problems = []
    for item in items:
        name = stdin_name or item.get("filename", "")
        if not stdin_name:
            with contextlib.suppress(ValueError):
                name = Path(name).resolve().relative_to(root).as_posix()
        row = (item.get("location") or {}).get("row")
        problems.append(Problem(NAME, name, row, item.get("code") or "ruff", item["message"]))
    return problems


def ruff_problems(ctx: GateContext, ruff: list[str], paths: list[str]) -> list[Problem]:
    result = ctx.sandbox.run([*_ruff_args(ctx, ruff), "--", *paths], cwd=ctx.root, timeout=120)
    if why := unusable("ruff", result):
        raise ToolBroken(why)
    if result.exit_code != 0:
        raise ToolBroken(f"ruff exited {result.exit_code}: {tail(result.stderr, 8)}")
    return _parse_ruff(ctx, result.stdout)


def ruff_old_problems(ctx: GateContext, ruff: list[str], path: str, old: str) -> list[Problem]:
    cmd = [*_ruff_args(ctx, ruff), "--stdin-filename", path, "-"]
    result = ctx.sandbox.run(cmd, cwd=ctx.root, timeout=60, stdin=old)
    if why := unusable("ruff (baseline)", result):
        raise ToolBroken(why)
    if result.exit_code != 0:
        raise ToolBroken(f"ruff (baseline) exited {result.exit_code}: {tail(result.stderr, 8)}")
    return _parse_ruff(ctx, result.stdout, stdin_name=path)


class LintGate:
    """Runs ruff and ``node --check`` on the touched files; see the module docstring."""

    name = NAME

    def run(self, ctx: GateContext) -> GateResult:
        started = time.monotonic()
        cmp = Comparison()
        ran: list[str] = []
        try:
            self._ruff(ctx, cmp, ran)
            self._node(ctx, cmp, ran)
            self._eslint(ctx, cmp, ran)
            self._gofmt(ctx, cmp, ran)
        except ToolBroken as exc:
            return GateResult(NAME, "could_not_run", output=str(exc),
                              seconds=time.monotonic() - started,
                              reason=f"could not lint: {exc}")  # fmt: skip
        seconds = time.monotonic() - started
        if not ran:
            reason = cmp.reason or "no touched file a linter checks (Python, JavaScript, Go)"
            return GateResult(NAME, "skipped", seconds=seconds, reason=reason)
        status: Status = "failed" if cmp.new else "passed"
        output = "\n".join(p.render() for p in cmp.new)
        return GateResult(NAME, status, cmp.new, cmp.fixed, output, seconds, cmp.reason)

    def _ruff(self, ctx: GateContext, cmp: Comparison, ran: list[str]) -> None:
        texts = current_texts(ctx, _PY)
        if not texts:
            return
        ruff = python_tool("ruff")
        if ruff is None:
            raise ToolBroken("ruff is not installed, and Python files were touched")
        found = ruff_problems(ctx, ruff, sorted(texts))
        ran.append("ruff")

        def check_old(path: str, old: str) -> list[Problem]:
            assert ruff is not None
            return ruff_old_problems(ctx, ruff, path, old)

        for path, text in texts.items():
            now = [p for p in found if p.path == path]
            cmp.add(old_problems(ctx, NAME, path, text, now, check_old, cmp.notes), now)

    def _node(self, ctx: GateContext, cmp: Comparison, ran: list[str]) -> None:
        def problems(node: str, path: str, text: str) -> list[Problem]:
            return node_check_problems(ctx, node, path, text)

        missing = "node is not on PATH: JavaScript files not checked"
        _each_file(ctx, cmp, ran, _JS, "node", missing, problems)

    def _eslint(self, ctx: GateContext, cmp: Comparison, ran: list[str]) -> None:
        missing: set[str] = set()
        for path, text in current_texts(ctx, _ESLINT).items():
            if (found := eslint_for(ctx, path)) is None:
                continue
            folder, eslint = found
            if eslint is None:
                missing.add(folder.relative_to(ctx.root).as_posix() or ".")
                continue
            ran.append("eslint")

            def check(
                p: str, t: str, eslint: Path = eslint, folder: Path = folder
            ) -> list[Problem]:
                return eslint_problems(ctx, eslint, folder, p, t)

            now = check(path, text)
            cmp.add(old_problems(ctx, "lint/eslint", path, text, now, check, cmp.notes), now)
        if missing:
            cmp.notes.append(
                "ESLint is configured but not installed (node_modules/.bin/eslint) in "
                + ", ".join(sorted(missing))
                + ": not run"
            )

    def _gofmt(self, ctx: GateContext, cmp: Comparison, ran: list[str]) -> None:
        def problems(gofmt: str, path: str, text: str) -> list[Problem]:
            return gofmt_problems(ctx, gofmt, path, text)

        missing = "gofmt is not on PATH: Go files not format-checked"
        _each_file(ctx, cmp, ran, (".go",), "gofmt", missing, problems, _layout_unread)


def _layout_unread(before: list[Problem], after: list[Problem]) -> list[Problem]:
    """``after`` less gofmt's "not formatted" when gofmt could not read the old text (it
    names the line it stopped at): that file's layout was never checked, so a layout gofmt
    would change is not the change's doing. HumanEvalFix Go-140's buggy `'__'` made gofmt
    stop; the reply that fixed it, in the file's own four-space layout, was refused for it."""
    if not any(p.code == "gofmt" and p.line is not None for p in before):
        return after
    return [p for p in after if not (p.code == "gofmt" and p.message == NOT_FORMATTED)]


def _each_file(
    ctx: GateContext, cmp: Comparison, ran: list[str], suffixes: tuple[str, ...], tool: str,
    missing: str, problems: Callable[[str, str, str], list[Problem]],
    adjust: Callable[[list[Problem], list[Problem]], list[Problem]] | None = None,
) -> None:  # fmt: skip
    """``tool`` (found on PATH) on each touched file with ``suffixes``, its problems compared
    with the old text's (``adjust``: what of the new ones the old ones leave standing);
    ``missing`` is noted when the tool is not there."""
    texts = current_texts(ctx, suffixes)
    if not texts:
        return
    found = which(tool)
    if found is None:
        cmp.notes.append(missing)
        return
    ran.append(tool)

    def check(path: str, text: str) -> list[Problem]:
        return problems(found, path, text)

    for path, text in texts.items():
        now = check(path, text)
        before = old_problems(ctx, f"lint/{tool}", path, text, now, check, cmp.notes)
        cmp.add(before, adjust(before, now) if adjust else now)
