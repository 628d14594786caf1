"""The types gate: mypy on the touched Python files, with the repository's own config; and
for Go, Rust and TypeScript the project's own checker — ``go vet``, ``cargo clippy`` or
``cargo check``, ``tsc --noEmit`` (:mod:`patchwright.verify.langs`).

When it runs: the repository configures mypy (mypy.ini, .mypy.ini, ``[mypy]`` in setup.cfg,
``[tool.mypy]`` in pyproject.toml), ships a ``py.typed`` marker, or a touched file carries
type hints. Otherwise the gate is skipped and says so: mypy on unannotated code reports
mostly noise, and a repository that never asked for type checking should not be blocked by it.
Where the gate applies, a mypy that is missing, cannot start, or ends without a report it can
read — exit 2 (a crash, a config error such as a plugin that does not import), or exit 1 with
no error line for a Python file — makes it ``could_not_run`` with mypy's own message.

Files that map to one module name (two ``conf.py`` in folders without ``__init__.py``, as in
sympy's ``doc/``) make mypy refuse the whole run; the gate then names modules from the
repository root (``--explicit-package-bases``) for that repository from then on.

The baseline is mypy on the same files with each changed file's old text swapped in through
``--shadow-file`` (separate cache directories keep the two runs from sharing stale entries).
Both caches start from a copy of the standard library's, checked once per machine
(:mod:`patchwright.verify.mypy_seed`).
Only errors in the touched files are compared, without line numbers.
"""

from __future__ import annotations

import ast
import re
import sys
import time
from pathlib import Path

from patchwright.verify.context import GateContext
from patchwright.verify.files import Comparison, current_texts
from patchwright.verify.langs.build import build_checks, combine
from patchwright.verify.model import GateResult, Problem, Status, diff_problems
from patchwright.verify.mypy_seed import seed_cache
from patchwright.verify.tools import (
    ToolBroken,
    ini_section,
    pyproject_tool,
    python_tool,
    repo_python,
    scratch_copies,
    scratch_dir,
    tail,
    unusable,
)

NAME = "types"
_PACKAGE_BASES: set[str] = set()  # repositories whose files need --explicit-package-bases
_LINE = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?:(?P<col>\d+):)? error: (?P<msg>.*?)"
                   r"(?:\s+\[(?P<code>[\w-]+)\])?$", re.M)  # fmt: skip


def mypy_configured(root: Path) -> str | None:
    """Where the repository configures mypy, or None."""
    for name in ("mypy.ini", ".mypy.ini"):
        if (root / name).is_file():
            return name
    if pyproject_tool(root, "mypy"):
        return "pyproject.toml [tool.mypy]"
    if ini_section(root / "setup.cfg", "mypy"):
        return "setup.cfg [mypy]"
    for marker in ("py.typed", "*/py.typed", "src/*/py.typed"):
        if any(root.glob(marker)):
            return "a py.typed marker"
    return None


def has_type_hints(text: str) -> bool:
    """True when the module annotates any function or variable."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            if node.returns is not None or any(a.annotation is not None for a in args):
                return True
    return False


def parse_mypy(output: str, keep: set[str]) -> list[Problem]:
    """``error`` lines of mypy's text output for the files in ``keep``."""
    problems = []
    for m in _LINE.finditer(output):
        path = Path(m["path"]).as_posix()
        if path not in keep:
            continue
        col = f"column {m['col']}" if m["col"] else ""
        problems.append(Problem(NAME, path, int(m["line"]), m["code"] or "mypy", m["msg"], col))
    return problems


def run_mypy(ctx: GateContext, mypy: list[str], paths: list[str], shadows: dict[str, str],
             cache: str) -> list[Problem]:  # fmt: skip
    python = repo_python(ctx.root)
    cache_dir = scratch_dir(ctx.sandbox, cache)
    seed_cache(cache_dir, mypy, python)
    args = [*mypy, "--show-column-numbers", "--show-error-codes", "--no-error-summary",
            "--no-pretty", "--no-color-output", "--hide-error-context",
            "--cache-dir", str(cache_dir)]  # fmt: skip
    if python != sys.executable:
        args += ["--python-executable", python]
    root = str(ctx.root)
    with scratch_copies(ctx.root, shadows) as copies:
        for path, copy in copies.items():
            args += ["--shadow-file", path, str(copy)]
        bases = ["--explicit-package-bases"] if root in _PACKAGE_BASES else []
        result = ctx.sandbox.run([*args, *bases, "--", *paths], cwd=ctx.root, timeout=300)
        if not bases and _duplicate_modules(result.exit_code, result.stdout):
            _PACKAGE_BASES.add(root)
            bases = ["--explicit-package-bases"]
            result = ctx.sandbox.run([*args, *bases, "--", *paths], cwd=ctx.root, timeout=300)
    if why := unusable("mypy", result):
        raise ToolBroken(why)
    if not _readable(result.exit_code, result.stdout):
        output = tail(result.stdout + "\n" + result.stderr, 8)
        raise ToolBroken(f"mypy exited {result.exit_code}: {output}")
    return parse_mypy(result.stdout, set(paths))


def _duplicate_modules(code: int | None, stdout: str) -> bool:
    """mypy refused two files that map to one module name (``doc/src/conf.py`` and
    ``doc/api/conf.py`` with no ``__init__.py``): named from the repository root instead
    (``--explicit-package-bases``), they are two modules, and it checks them."""
    return code == 2 and "Duplicate module named" in stdout


def _readable(code: int | None, stdout: str) -> bool:
    """mypy's report can be trusted: exit 0, or exit 1 with an error line for a Python file
    (exit 1 with none is a crash, e.g. ``No module named mypy``; exit 2 is a fatal error)."""
    if code == 0:
        return True
    return code == 1 and any(m["path"].endswith((".py", ".pyi")) for m in _LINE.finditer(stdout))


class TypesGate:
    """Runs mypy on the touched Python files when the repository uses types, and the Go,
    Rust and TypeScript projects' checkers (:mod:`patchwright.verify.langs.build`); see
    above."""

    name = NAME

    def run(self, ctx: GateContext) -> GateResult:
        python = self._python(ctx)
        others = build_checks(ctx)
        return python if others is None else combine([python, others])

    def _python(self, ctx: GateContext) -> GateResult:
        started = time.monotonic()
        texts = current_texts(ctx, (".py", ".pyi"))
        skip = self._why_skip(ctx, texts)
        if skip:
            return GateResult(NAME, "skipped", seconds=time.monotonic() - started, reason=skip)
        paths = sorted(texts)
        cmp = Comparison()
        try:
            mypy = python_tool("mypy")
            if mypy is None:
                raise ToolBroken("is not installed, but the gate applies here")
            now = run_mypy(ctx, mypy, paths, {}, "mypy")
            before = self._before(ctx, mypy, texts, now, cmp.notes)
        except ToolBroken as exc:
            why = str(exc).removeprefix("mypy ")
            return GateResult(NAME, "could_not_run", output=why,
                              seconds=time.monotonic() - started,
                              reason=f"mypy could not run: {why}")  # fmt: skip
        new, fixed = diff_problems(before, now)
        cmp.new, cmp.fixed = new, fixed
        status: Status = "failed" if new else "passed"
        output = "\n".join(p.render() for p in new)
        return GateResult(NAME, status, new, fixed, output, time.monotonic() - started, cmp.reason)

    @staticmethod
    def _why_skip(ctx: GateContext, texts: dict[str, str]) -> str | None:
        if not texts:
            return "no touched Python files"
        if mypy_configured(ctx.root) or any(has_type_hints(t) for t in texts.values()):
            return None
        return "the repository does not configure mypy and the touched files have no type hints"

    @staticmethod
    def _before(ctx: GateContext, mypy: list[str], texts: dict[str, str], now: list[Problem],
                notes: list[str]) -> list[Problem]:  # fmt: skip
        base = ctx.baseline
        existed = [p for p in sorted(texts) if base.knows(p) and base.old_text(p) is not None]
        notes.extend(f"no baseline for {p} (not kept), its problems count as new"
                     for p in sorted(texts) if not base.knows(p))  # fmt: skip
        shadows = {p: t for p in existed if (t := base.old_text(p) or "") != texts[p]}
        if not shadows and len(existed) == len(texts):
            return now
        key = tuple(existed)
        if key not in base.type_memo:
            base.type_memo[key] = (
                run_mypy(ctx, mypy, existed, shadows, "mypy-old") if existed else []
            )
        return base.type_memo[key]
