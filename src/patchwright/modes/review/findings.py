"""Static findings per file: what the review loop looks at first and shows the model.

Five sources, each with a weight for targeting: the repository's failing tests (the files
their tracebacks run through), a crash of the program's entry point (the smoke run), lint
and types with the gates' own tools and settings (ruff and mypy for Python; ``node --check``,
ESLint and tsc for JavaScript and TypeScript, :mod:`.jsfindings`), and lazy patterns (bare or
silent ``except``, ``Any``, ``TODO``/``FIXME`` notes). A tool that is missing or broken is left out and says
so in ``notes``, never reported as "no findings".
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.agent.relations.traceback_refs import referenced_files
from patchwright.index import FileSymbols
from patchwright.modes.review.jsfindings import js_problems
from patchwright.modes.review.links import failing_test_links
from patchwright.sandbox import Sandbox
from patchwright.verify import Baseline, GateContext
from patchwright.verify.lint import ruff_problems
from patchwright.verify.tools import ToolBroken, python_tool
from patchwright.verify.typecheck import mypy_configured, run_mypy

WEIGHTS = {"smoke": 8.0, "tests": 6.0, "lint": 3.0, "types": 3.0, "lazy": 1.0}
_SERIOUS_LINT = ("E9", "F63", "F7", "F82", "node-check")  # syntax errors, undefined names
_NOTE = re.compile(r"(?:#|//)\s*(TODO|FIXME|XXX|HACK)\b[:\s]*(.*)")
MAX_TYPED_FILES = 300


@dataclass(frozen=True)
class Finding:
    path: str
    line: int | None
    source: str  # smoke | tests | lint | types | lazy
    code: str
    message: str
    test: str = ""  # the failing test's id (source "tests")

    @property
    def weight(self) -> float:
        serious = self.source == "lint" and self.code.startswith(_SERIOUS_LINT)
        return WEIGHTS[self.source] + (2.0 if serious else 0.0)

    def render(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: [{self.source} {self.code}] {self.message}"


@dataclass
class Findings:
    by_file: dict[str, list[Finding]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def of(self, path: str) -> list[Finding]:
        return self.by_file.get(path, [])

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.by_file.values())


def scan(
    root: Path,
    sandbox: Sandbox,
    baseline: Baseline,
    texts: Mapping[str, str],
    files: Sequence[str],
    symbols: Mapping[str, FileSymbols],
) -> Findings:
    """Findings for ``files`` (the review's candidates; ``texts`` their contents; ``symbols``
    the index's, to tie a failing test to the code it calls)."""
    found: dict[str, list[Finding]] = defaultdict(list)
    notes: list[str] = []
    wanted = set(files)
    python = [p for p in files if p.endswith((".py", ".pyi"))]
    ctx = GateContext(root=root, sandbox=sandbox, baseline=baseline, touched=python)
    for finding in [
        *_test_findings(baseline, files, symbols, texts),
        *_smoke_findings(baseline, files),
        *_lint_findings(ctx, python, notes),
        *_type_findings(ctx, python, notes),
        *_js_findings(ctx, texts, files, notes),
        *(f for p in files for f in lazy_patterns(p, texts.get(p, ""))),
    ]:
        if finding.path in wanted:
            found[finding.path].append(finding)
    return Findings(dict(found), notes)


def _test_findings(
    baseline: Baseline,
    files: Sequence[str],
    symbols: Mapping[str, FileSymbols],
    texts: Mapping[str, str],
) -> list[Finding]:
    run = baseline.tests
    if run is None:
        return []
    out = []
    for test_id, paths in failing_test_links(run, files, symbols, texts).items():
        case = run.cases.get(test_id)
        message = f"{test_id} fails" + (f": {case.message}" if case and case.message else "")
        out += [Finding(p, None, "tests", case.outcome if case else "failed", message[:300],
                        test_id) for p in sorted(paths)]  # fmt: skip
    return out


def _smoke_findings(baseline: Baseline, files: Sequence[str]) -> list[Finding]:
    smoke = baseline.smoke
    if smoke is None or not smoke.crashed:
        return []
    last = next((x for x in reversed(smoke.output.splitlines()) if x.strip()), "crashed")
    return [
        Finding(path, line, "smoke", "crash", f"the program crashes: {last.strip()[:200]}")
        for path, line in referenced_files(smoke.output, list(files))
    ]


def _lint_findings(ctx: GateContext, python: list[str], notes: list[str]) -> list[Finding]:
    ruff = python_tool("ruff")
    if not python or ruff is None:
        notes += [] if not python else ["ruff is not installed: no lint findings"]
        return []
    try:
        problems = ruff_problems(ctx, ruff, python)
    except ToolBroken as exc:
        notes.append(f"no lint findings: {exc}")
        return []
    return [Finding(p.path, p.line, "lint", p.code or "ruff", p.message) for p in problems]


def _type_findings(ctx: GateContext, python: list[str], notes: list[str]) -> list[Finding]:
    mypy = python_tool("mypy")
    if not python or mypy is None or not mypy_configured(ctx.root):
        return []
    try:
        problems = run_mypy(ctx, mypy, python[:MAX_TYPED_FILES], {}, "review-mypy")
    except ToolBroken as exc:
        notes.append(f"no type findings: {exc}")
        return []
    return [Finding(p.path, p.line, "types", p.code or "mypy", p.message) for p in problems]


def _js_findings(
    ctx: GateContext, texts: Mapping[str, str], files: Sequence[str], notes: list[str]
) -> list[Finding]:
    return [
        Finding(p.path, p.line, "types" if p.gate == "types" else "lint", p.code or p.gate,
                p.message)
        for p in js_problems(ctx, texts, files, notes)
    ]  # fmt: skip


def lazy_patterns(path: str, text: str) -> list[Finding]:
    """Bare or silent ``except``, ``Any`` annotations and TODO-style notes in one file."""
    out = [
        Finding(path, n, "lazy", m.group(1).lower(), f"{m.group(1)} {m.group(2).strip()}"[:160])
        for n, line in enumerate(text.splitlines(), 1)
        if (m := _NOTE.search(line))
    ]
    if not path.endswith(".py"):
        return out
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler):
            silent = all(isinstance(s, ast.Pass) for s in node.body)
            if node.type is None:
                out.append(Finding(path, node.lineno, "lazy", "bare-except",
                                   "bare `except:` also catches KeyboardInterrupt and SystemExit"))  # fmt: skip
            elif silent:
                out.append(Finding(path, node.lineno, "lazy", "silent-except",
                                   "an exception is caught and silently ignored"))  # fmt: skip
        elif (isinstance(node, ast.Name) and node.id == "Any") or (
            isinstance(node, ast.Attribute) and node.attr == "Any"
        ):
            out.append(Finding(path, node.lineno, "lazy", "any", "`Any` hides the real type"))
    return out
