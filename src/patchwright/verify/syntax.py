"""The syntax gate: does every touched file still parse?

Python via ``ast`` (line and column), JSON via ``json``, TOML via ``tomllib``, YAML via
PyYAML when installed, shell via ``bash -n`` in the sandbox, CSS by brace balance, and
other languages by tree-sitter's ERROR/MISSING nodes when a grammar is available offline.
Only errors the baseline did not already have fail the gate. A checker that is not installed
(PyYAML, a grammar, bash) leaves a note; ``bash -n`` that was blocked, timed out or could not
start makes the gate ``could_not_run``.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import time
import tomllib
import warnings
from collections.abc import Callable
from pathlib import PurePosixPath

from patchwright.verify.context import GateContext
from patchwright.verify.files import Comparison, current_texts, old_problems
from patchwright.verify.model import GateResult, Problem, Status
from patchwright.verify.tools import ToolBroken, unusable, which
from patchwright.verify.treesitter import language_of, parser_for, tree_sitter_problems

NAME = "syntax"
# JSON files that conventionally allow comments (JSONC): not checked as strict JSON.
_JSONC = re.compile(r"(^|/)(tsconfig[^/]*|jsconfig[^/]*|devcontainer)\.json$|(^|/)\.vscode/")


class Unavailable(Exception):
    """The checker for a file's language is not available here (the message says why)."""


def python_problems(path: str, text: str) -> list[Problem]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text, filename=path)
    except SyntaxError as exc:
        col = f"column {exc.offset}" if exc.offset else ""
        return [Problem(NAME, path, exc.lineno, "syntax", exc.msg, col)]
    except ValueError as exc:  # e.g. null bytes
        return [Problem(NAME, path, None, "syntax", str(exc))]
    return []


def json_problems(path: str, text: str) -> list[Problem]:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return [Problem(NAME, path, exc.lineno, "json", exc.msg, f"column {exc.colno}")]
    return []


def toml_problems(path: str, text: str) -> list[Problem]:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(match.group(1)) if match else None
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        return [Problem(NAME, path, line, "toml", message)]
    return []


def yaml_problems(path: str, text: str) -> list[Problem]:
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        raise Unavailable("PyYAML is not installed") from None
    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return [Problem(NAME, path, line, "yaml", str(problem))]
    return []


def css_problems(path: str, text: str) -> list[Problem]:
    """Unbalanced ``{}``/``()``/``[]`` outside comments and strings."""
    stack: list[tuple[str, int]] = []
    pairs = {"}": "{", ")": "(", "]": "["}
    line, i, n = 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
            continue
        elif ch in "\"'":
            end = i + 1
            while end < n and text[end] not in (ch, "\n"):
                end += 2 if text[end] == "\\" else 1
            i = end + 1
            continue
        elif ch in "{([":
            stack.append((ch, line))
        elif ch in pairs:
            if not stack or stack[-1][0] != pairs[ch]:
                return [Problem(NAME, path, line, "css", f"unmatched {ch!r}")]
            stack.pop()
        i += 1
    if stack:
        opener, at = stack[-1]
        return [Problem(NAME, path, at, "css", f"{opener!r} is never closed")]
    return []


def shell_checker(ctx: GateContext) -> Callable[[str, str], list[Problem]]:
    bash = which("bash")

    def check(path: str, text: str) -> list[Problem]:
        if bash is None:
            raise Unavailable("bash is not on PATH")
        result = ctx.sandbox.run([bash, "-n"], stdin=text, cwd=ctx.root, timeout=30)
        if why := unusable("bash -n", result):
            raise ToolBroken(why)
        problems = []
        for m in re.finditer(r"line (\d+): (.+)", result.stderr):
            problems.append(Problem(NAME, path, int(m.group(1)), "bash", m.group(2).strip()))
        if result.exit_code not in (0, None) and not problems:
            problems.append(Problem(NAME, path, None, "bash", result.stderr.strip()[:200]))
        return problems

    return check


def tree_sitter_checker(path: str, text: str) -> list[Problem]:
    language = language_of(path)
    if language is None:
        return []
    parser, why = parser_for(language)
    if parser is None:
        raise Unavailable(why)
    return tree_sitter_problems(path, text, parser)


def checker_for(ctx: GateContext, path: str) -> Callable[[str, str], list[Problem]] | None:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in (".py", ".pyi"):
        return python_problems
    if suffix == ".json":
        return None if _JSONC.search(path) else json_problems
    fixed = {".toml": toml_problems, ".yaml": yaml_problems, ".yml": yaml_problems,
             ".css": css_problems}  # fmt: skip
    if suffix in fixed:
        return fixed[suffix]
    if suffix in (".sh", ".bash"):
        return shell_checker(ctx)
    if language_of(path) is not None:
        return tree_sitter_checker
    return None


class SyntaxGate:
    """Parses every touched file with its language's parser; see the module docstring."""

    name = NAME

    def run(self, ctx: GateContext) -> GateResult:
        started = time.monotonic()
        cmp = Comparison()
        checked = 0
        for path, text in current_texts(ctx).items():
            check = checker_for(ctx, path)
            if check is None:
                continue
            try:
                now = check(path, text)
                before = old_problems(ctx, NAME, path, text, now, check, cmp.notes)
            except Unavailable as exc:
                cmp.notes.append(f"{path} not checked: {exc}")
                continue
            except ToolBroken as exc:
                return GateResult(NAME, "could_not_run", output=str(exc),
                                  seconds=time.monotonic() - started,
                                  reason=f"{path} could not be checked: {exc}")  # fmt: skip
            checked += 1
            cmp.add(before, now)
        seconds = time.monotonic() - started
        if checked == 0:
            reason = cmp.reason or "no touched file in a language with a syntax checker"
            return GateResult(NAME, "skipped", seconds=seconds, reason=reason)
        status: Status = "failed" if cmp.new else "passed"
        output = "\n".join(p.render() for p in cmp.new)
        return GateResult(NAME, status, cmp.new, cmp.fixed, output, seconds, cmp.reason)
