"""What a failed JavaScript ``assert(a === b)`` compared.

``console.assert(stringSequence(0) === '0')`` made to throw (HumanEvalFix JavaScript's tests
do), ``assert(a === b)`` and ``assert.ok(a == b)`` fail with ``actual: false, expected:
true``: the comparison was false, and nothing says what ``a`` was. pytest would show it; with
it a small model sees at once that ``stringSequence(0)`` returned ``""``. Without it, the
1.5B model sent ``[...Array(n).keys()]`` four times (JavaScript-15).

So when a plain script's run (no per-test report) fails that way, the script runs once more
in a scratch copy of the repository (``copy_tree``; the repository is never touched), the
comparison on the first line of the stack that holds one rewritten to print both sides
before it compares them as before. The values join the output, under the error's name::

    AssertionError [ERR_ASSERTION]: console.assert failed
    main.test.js:9 compared `stringSequence(0) === '0'`: left `""`, right `"0"`

node's own runner (``node --test``) names the failed line of each case; the first few cases
whose line holds such a comparison are probed in one run the same way, and the line joins
each case's detail.

A line without exactly one top-level ``===`` or ``==`` in the assertion's first argument, a
copy too large, or a run that prints nothing adds nothing.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.runners.value_diff import statement, string_end, where_they_part
from patchwright.verify.testmodel import TestRun
from patchwright.verify.tools import TooLarge, copy_tree, scratch_dir

MAX_FILES = 2000
MAX_TESTS = 3  # failed cases of a per-test run probed
STATEMENT = 6  # lines at most of an assertion that goes on past its line
SHOWN = 400  # characters of each value
MARK = "@@patchwright-values@@"
_CALL = re.compile(r"\b(?:console\.assert|assert\.ok|assert)\s*\(")
_FRAME = re.compile(r"(?:\(|\bat )([\w./@-]+\.[cm]?[jt]sx?):(\d+):\d+\)?")
_FALSE = re.compile(r"\bactual: false,\s+expected: true\b")
_STRING = {"'", '"', "`"}
_OPS = ("!==", "===", "!=", "==", "&&", "||", "?")
_Comparison = tuple[int, int, str, str, str]  # start, end, left, operator, right
# prints both sides, as JSON where JSON says what they are, then compares them as before
_PROBE = (
    "((l, r) => {{ if (!(l {op} r)) {{ const f = (v) => {{ try {{ return typeof v === "
    "'string' || Array.isArray(v) || (v !== null && typeof v === 'object' && "
    "Object.getPrototypeOf(v) === Object.prototype) ? JSON.stringify(v) : String(v); }} "
    "catch (e) {{ return String(v); }} }}; process.stderr.write('\\n{mark}' + "
    "JSON.stringify([{where}, f(l), f(r)]) + '\\n'); }} return l {op} r; }})(({left}), ({right}))"
)


def comparison(line: str) -> _Comparison | None:
    """Where on ``line`` the first argument of ``assert(A === B)`` (``console.assert``,
    ``assert.ok``; ``==`` too) starts and ends, and ``A``, the operator and ``B``; None when
    the line holds no such assertion (``!==``, ``&&``, ``?``, two comparisons)."""
    found = _CALL.search(line)
    if found is None:
        return None
    start = i = found.end()
    depth, ops = 0, []
    while i < len(line):
        c = line[i]
        if c in _STRING:
            i = string_end(line, i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}" or (c == "," and depth == 0):
            if depth == 0:
                break
            depth -= 1
        elif depth == 0:
            op = next((o for o in _OPS if line.startswith(o, i)), "")
            if op:
                ops.append((i, op))
                i += len(op)
                continue
        i += 1
    if i >= len(line) or len(ops) != 1 or ops[0][1] not in ("===", "=="):
        return None
    at, op = ops[0]
    left, right = line[start:at].strip(), line[at + len(op) : i].strip()
    return (start, i, left, op, right) if left and right else None


_Pointed = tuple[str, int, int, str, _Comparison]  # path, line, lines taken, text, comparison


def _pointed(output: str, root: Path) -> _Pointed | None:
    """The first stack frame in a file of the repository whose line holds a comparison:
    its path, line number, text and the comparison."""
    for path, number in _FRAME.findall(output):
        if "node_modules" in path or path.startswith(("node:", "/")):
            continue
        try:
            lines = (root / path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        n = int(number)
        taken, text = statement(lines, n - 1, STATEMENT, "\"'`") if 0 < n <= len(lines) else (0, "")
        found = comparison(text)
        if found is not None:
            return path, n, taken, text, found
    return None


def add_js_values(
    run: TestRun, root: Path, sandbox: Sandbox, command: str, env: Mapping[str, str], timeout: float
) -> None:
    """Add what a failed ``assert(a === b)`` compared: to the output of a plain script's
    run, to the detail of each of the first few failed cases of node's own runner (see the
    module docstring)."""
    if run.exit_code in (0, None):
        return
    if run.per_test and run.runner == "node":
        pointed: dict[str, _Pointed] = {}
        for case in (c for c in run.cases.values() if c.outcome == "failed"):
            if len(pointed) < MAX_TESTS and (
                at := _pointed(f"{case.detail}\n{case.message}", root)
            ):
                pointed[case.id] = at
        values = _probe(list(pointed.values()), root, sandbox, command, env, timeout)
        for case_id, at in pointed.items():
            if said := _said(at, values):
                case = run.cases[case_id]
                run.cases[case_id] = replace(case, detail="\n".join([case.detail, *said]))
    elif not run.per_test and _FALSE.search(run.output):
        first = _pointed(run.output, root)
        values = _probe([first], root, sandbox, command, env, timeout) if first else {}
        if first and (said := _said(first, values)):
            run.output = _after_error(run.output, said)


def _probe(
    pointed: list[_Pointed],
    root: Path,
    sandbox: Sandbox,
    command: str,
    env: Mapping[str, str],
    timeout: float,
) -> dict[str, tuple[str, str]]:
    """Both sides of each pointed comparison, by ``path:line``: ``command`` run once in a
    scratch copy with each comparison printing its sides."""
    if not pointed:
        return {}
    copy = scratch_dir(sandbox, "js-values") / "repo"
    try:
        copy_tree(root, copy, max_files=MAX_FILES)
    except TooLarge:
        return {}
    try:
        for path, number, taken, line, (start, end, left, op, right) in pointed:
            where = json.dumps(f"{path}:{number}")
            probe = _PROBE.format(op=op, mark=MARK, where=where, left=left, right=right)
            lines = (copy / path).read_text(encoding="utf-8").split("\n")
            lines[number - 1 : number - 1 + taken] = [line[:start] + probe + line[end:]]
            lines[number:number] = [""] * (taken - 1)  # the lines below keep their numbers
            (copy / path).write_text("\n".join(lines), encoding="utf-8")
        result = sandbox.run(command, cwd=copy, timeout=min(timeout, 60), extra_env=env)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    return _values(result.stdout + "\n" + result.stderr)


def _said(where: _Pointed, values: Mapping[str, tuple[str, str]]) -> list[str]:
    path, number, _, _, (_, _, left, op, right) = where
    key = f"{path}:{number}"
    if key not in values:
        return []
    shown = [v[:SHOWN] + ("…" if len(v) > SHOWN else "") for v in values[key]]
    said = [f"{key} compared `{left} {op} {right}`: left `{shown[0]}`, right `{shown[1]}`"]
    if part := where_they_part(*values[key][::-1], ("right", "left")):
        said.append(part)
    return said


def _after_error(output: str, said: list[str]) -> str:
    """``output`` with ``said`` after the line that names the AssertionError (the stack below
    it says less), else at its end; node's dump of the error's fields (``actual: false,
    expected: true``, which a reader takes for the values) left out."""
    lines = output.split("\n")
    at = next((i for i, x in enumerate(lines) if "AssertionError" in x), len(lines) - 1)
    return "\n".join([*lines[: at + 1], *said, *_without_fields(lines[at + 1 :])])


_FIELD = re.compile(r"^\s+\w+: .*,?$")
FIELDS = 10  # lines at most of the fields node prints after an error's stack


def _without_fields(lines: list[str]) -> list[str]:
    """``lines`` less the first ``{ generatedMessage: false, code: 'ERR_ASSERTION', … }``
    that ends a stack line."""
    for i, line in enumerate(lines):
        if not line.endswith(" {"):
            continue
        end = next((j for j in range(i + 1, min(len(lines), i + FIELDS + 2)) if lines[j] == "}"), 0)
        if end and all(_FIELD.match(x) for x in lines[i + 1 : end]):
            return [*lines[:i], line.removesuffix(" {"), *lines[end + 1 :]]
        break
    return lines


def _values(printed: str) -> dict[str, tuple[str, str]]:
    """What the probes printed: the first values each comparison printed, by ``path:line``."""
    found: dict[str, tuple[str, str]] = {}
    for line in printed.split("\n"):  # not splitlines(): a value may hold U+0085 or U+2028
        at = line.find(MARK)
        if at < 0:
            continue
        try:
            where, left, right = json.loads(line[at + len(MARK) :])
        except ValueError:
            continue
        found.setdefault(str(where), (visible(str(left)), visible(str(right))))
    return found


def visible(value: str) -> str:
    """``value`` with each character that prints as nothing or moves the cursor written as
    its escape (``\\u0085``), as JSON writes the first 32: ``decodeShift`` that computed char
    codes past ``z`` returned C1 controls, shown as a value four characters shorter than the
    one expected (HumanEvalFix JavaScript-50)."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in value)
