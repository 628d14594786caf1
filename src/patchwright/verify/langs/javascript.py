"""JavaScript and TypeScript: ``node --check`` (lint), ESLint (lint), ``tsc --noEmit`` (types).

``node --check`` reads the text from stdin and is told how node would load the file: an
``.mjs`` file as a module, ``.cjs`` as CommonJS, a ``.js`` file as its nearest
``package.json``'s ``"type"`` says — and, where that says nothing, as CommonJS unless the text
only parses as a module (``import``/``export``: bundled or transpiled code that node itself
never loads). JSX, which node cannot parse, is left to the syntax gate's tree-sitter parser.

ESLint runs when the project configures it (a flat ``eslint.config.*``, an ``.eslintrc*``, or
``eslintConfig`` in ``package.json``, at the file's folder or above within the repository)
and has it installed (``node_modules/.bin/eslint`` there or above): its own version, with its
own config, in the config's folder, on the text from stdin under the file's name; errors
count (severity 2), warnings do not.

``tsc`` runs for each ``tsconfig.json`` owning a touched TypeScript file, from the
``node_modules/.bin/tsc`` nearest to it. What it reports inside ``node_modules`` (an
installed package's declarations that do not compile under the project's options) is not the
change's and is left out: the old tree's ``node_modules`` is a link, so tsc names those files
by their real path there, and they would otherwise read as new.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path, PurePosixPath

from patchwright.verify.context import GateContext
from patchwright.verify.model import Problem
from patchwright.verify.runners.common import relative
from patchwright.verify.tools import ToolBroken, tail, unusable

_MODULE_ONLY = (
    "Cannot use import statement outside a module",
    "Unexpected token 'export'",
    "Cannot use 'import.meta' outside a module",
    "await is only valid in async functions and the top level bodies of modules",
)
_ESLINT_CONFIGS = (
    *(f"eslint.config.{ext}" for ext in ("js", "mjs", "cjs", "ts", "mts", "cts")),
    *(f".eslintrc{ext}" for ext in ("", ".js", ".cjs", ".json", ".yml", ".yaml")),
)
_TSC_LINE = re.compile(r"^(.+?)\((\d+),(\d+)\): error (TS\d+): (.+)$")


def _folders(ctx: GateContext, path: str) -> list[Path]:
    """The file's folder and those above it, up to the repository root."""
    folder = ctx.root / PurePosixPath(path).parent
    found = [folder]
    while folder != ctx.root and ctx.root in folder.parents:
        folder = folder.parent
        found.append(folder)
    return found


def _package_type(ctx: GateContext, path: str) -> str | None:
    for folder in _folders(ctx, path):
        package = folder / "package.json"
        if package.is_file():
            try:
                data = json.loads(package.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                return None
            kind = data.get("type") if isinstance(data, dict) else None
            return kind if kind in ("module", "commonjs") else None
    return None


def node_check_problems(ctx: GateContext, node: str, path: str, text: str) -> list[Problem]:
    """``node --check`` of ``text`` as node would load ``path`` (see the module docstring)."""
    suffix = PurePosixPath(path).suffix.lower()
    declared = {".mjs": "module", ".cjs": "commonjs"}.get(suffix) or _package_type(ctx, path)
    kind = declared or "commonjs"
    error = _node_check(ctx, node, text, kind)
    if error and declared is None and any(m in error for m in _MODULE_ONLY):
        error = _node_check(ctx, node, text, "module")
    if not error:
        return []
    where = re.search(r"^\[stdin\]:(\d+)", error, re.M)
    said = re.search(r"^(\w*Error): (.+)$", error, re.M)
    message = f"{said.group(1)}: {said.group(2)}" if said else tail(error, 3)
    if said and said.group(2).startswith("Unexpected token '<'") and _parses_as_jsx(path, text):
        return []  # JSX: node cannot read it; the syntax gate's parser can
    return [Problem("lint", path, int(where.group(1)) if where else None, "node-check", message)]


def _node_check(ctx: GateContext, node: str, text: str, kind: str) -> str:
    """node's complaint about ``text`` loaded as ``kind``; "" when it parses."""
    argv = [node, "--check", f"--input-type={kind}"]
    result = ctx.sandbox.run(argv, stdin=text, cwd=ctx.root, timeout=60)
    if why := unusable("node --check", result):
        raise ToolBroken(why)
    return "" if result.exit_code == 0 else result.stderr


def _parses_as_jsx(path: str, text: str) -> bool:
    from patchwright.verify.treesitter import parser_for

    parser, _ = parser_for("javascript")
    return parser is not None and not parser.parse(text.encode("utf-8")).root_node.has_error


def local_bin(ctx: GateContext, path: str, name: str) -> Path | None:
    """``node_modules/.bin/<name>`` in the file's folder or above, within the repository."""
    for folder in _folders(ctx, path):
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.exists():
            return candidate
    return None


def eslint_config(ctx: GateContext, path: str) -> Path | None:
    """The folder whose ESLint config applies to ``path``, or None when none does."""
    for folder in _folders(ctx, path):
        if any((folder / name).is_file() for name in _ESLINT_CONFIGS):
            return folder
        package = folder / "package.json"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if package.is_file() and '"eslintConfig"' in package.read_text(encoding="utf-8"):
                return folder
    return None


def eslint_for(ctx: GateContext, path: str) -> tuple[Path, Path | None] | None:
    """Where ESLint applies to ``path``: its config's folder and the project's own
    ``node_modules/.bin/eslint`` (None when not installed); None when no config applies."""
    folder = eslint_config(ctx, path)
    return None if folder is None else (folder, local_bin(ctx, path, "eslint"))


def eslint_problems(
    ctx: GateContext, eslint: Path, folder: Path, path: str, text: str
) -> list[Problem]:
    """ESLint's errors for ``text`` as the content of ``path``, run in ``folder``."""
    argv = [str(eslint), "--format", "json", "--stdin", "--stdin-filename", str(ctx.root / path)]
    result = ctx.sandbox.run(argv, stdin=text, cwd=folder, timeout=120)
    if why := unusable("eslint", result):
        raise ToolBroken(why)
    if result.exit_code not in (0, 1):
        raise ToolBroken(
            f"eslint exited {result.exit_code}: {tail(result.stderr or result.stdout, 6)}"
        )
    try:
        reports = json.loads(result.stdout or "[]")
    except ValueError as exc:
        raise ToolBroken(f"eslint printed no JSON ({exc}): {tail(result.stdout, 5)}") from None
    problems = []
    for report in reports if isinstance(reports, list) else []:
        for item in report.get("messages") or [] if isinstance(report, dict) else []:
            if not isinstance(item, dict) or item.get("severity") != 2:
                continue
            line = item.get("line") if isinstance(item.get("line"), int) else None
            code = str(item.get("ruleId") or ("syntax" if item.get("fatal") else "eslint"))
            problems.append(Problem("lint", path, line, code, str(item.get("message", ""))))
    return problems


def tsc_problems(ctx: GateContext, tsc: Path, tree: Path, project: str) -> list[Problem]:
    """``tsc --noEmit`` for ``tree/project/tsconfig.json``; paths relative to ``tree``."""
    cwd = tree / project
    result = ctx.sandbox.run(
        [str(tsc), "--noEmit", "--pretty", "false", "-p", "."], cwd=cwd, timeout=ctx.test_timeout
    )
    if why := unusable("tsc", result):
        raise ToolBroken(why)
    problems = []
    for line in result.stdout.splitlines():
        m = _TSC_LINE.match(line.strip())
        if m is None:
            continue
        rel = relative(str(cwd / m.group(1)), tree)
        if rel is not None and "node_modules" not in PurePosixPath(rel).parts:
            problems.append(Problem("types", rel, int(m.group(2)), m.group(4), m.group(5)))
    if result.exit_code not in (0, None) and not problems:
        said = tail(result.stdout + "\n" + result.stderr, 6, 800)
        raise ToolBroken(f"tsc exited {result.exit_code}: {said}")
    return problems
