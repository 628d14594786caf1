"""The review's problems in JavaScript and TypeScript files, from the tools the gates use
(``verify/langs/javascript.py``): ``node --check`` on each JavaScript file, ESLint's errors
where the project configures and installs it, and ``tsc --noEmit`` for each ``tsconfig.json``
owning a reviewed TypeScript file, with its own ``node_modules/.bin/tsc``. A tool that is
missing or broken is named in the notes, never read as "no findings"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from shutil import which

from patchwright.verify import GateContext
from patchwright.verify.langs.javascript import (
    eslint_for,
    eslint_problems,
    local_bin,
    node_check_problems,
    tsc_problems,
)
from patchwright.verify.langs.project import owners
from patchwright.verify.model import Problem
from patchwright.verify.tools import ToolBroken

NODE_SUFFIXES = (".js", ".mjs", ".cjs")
ESLINT_SUFFIXES = (*NODE_SUFFIXES, ".jsx", ".ts", ".tsx", ".mts", ".cts")
TS_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")
MAX_FILES = 200  # a node process each: enough for a review's candidates


def js_problems(
    ctx: GateContext, texts: Mapping[str, str], files: Sequence[str], notes: list[str]
) -> list[Problem]:
    """Problems in the JavaScript/TypeScript files among ``files`` (``texts`` their text)."""
    scripts = [p for p in files if p.endswith(ESLINT_SUFFIXES) and p in texts][:MAX_FILES]
    if not scripts:
        return []
    problems = [
        *_node_checks(ctx, texts, scripts, notes),
        *_eslint(ctx, texts, scripts, notes),
        *_tsc(ctx, [p for p in scripts if p.endswith(TS_SUFFIXES)], notes),
    ]
    wanted = set(scripts)
    return [p for p in problems if p.path in wanted]


def _node_checks(
    ctx: GateContext, texts: Mapping[str, str], scripts: list[str], notes: list[str]
) -> list[Problem]:
    plain = [p for p in scripts if p.endswith(NODE_SUFFIXES)]
    node = which("node") if plain else None
    if plain and node is None:
        notes.append("node is not on PATH: no syntax findings for JavaScript files")
    if node is None:
        return []
    try:
        return [found for p in plain for found in node_check_problems(ctx, node, p, texts[p])]
    except ToolBroken as exc:
        notes.append(f"no node --check findings: {exc}")
        return []


def _eslint(
    ctx: GateContext, texts: Mapping[str, str], scripts: list[str], notes: list[str]
) -> list[Problem]:
    found: list[Problem] = []
    missing: set[str] = set()
    for path in scripts:
        if (setup := eslint_for(ctx, path)) is None:
            continue
        folder, eslint = setup
        if eslint is None:
            missing.add(folder.relative_to(ctx.root).as_posix() or ".")
            continue
        try:
            found += eslint_problems(ctx, eslint, folder, path, texts[path])
        except ToolBroken as exc:
            notes.append(f"no ESLint findings: {exc}")
            return found
    if missing:
        notes.append(f"ESLint is configured but not installed in {', '.join(sorted(missing))}: "
                     "no ESLint findings there")  # fmt: skip
    return found


def _tsc(ctx: GateContext, typescript: list[str], notes: list[str]) -> list[Problem]:
    found: list[Problem] = []
    for project in owners(ctx, typescript, "tsconfig.json"):
        config = (PurePosixPath(project) / "tsconfig.json").as_posix()
        tsc = local_bin(ctx, config, "tsc")
        if tsc is None:
            notes.append(f"TypeScript is not installed for {config}: no type findings there")
            continue
        try:
            found += tsc_problems(ctx, tsc, ctx.root, project)
        except ToolBroken as exc:
            notes.append(f"no tsc findings for {config}: {exc}")
    return found
