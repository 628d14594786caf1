"""Reading the reports of JavaScript test runners into cases.

- node's runner: ``NODE_REPORTER`` (a reporter module, written where the sandboxed run can
  read it) prints one JSON line per finished test with its file, line, suite path and error;
  a file that fails before any test (a syntax error, a missing module) is one failing case
  named by the file, with what it printed on stderr;
- jest and vitest: the ``--json`` report (``testResults[].assertionResults[]``; a test file
  that fails to load has a ``message`` and no assertions);
- mocha: the ``json`` reporter (``tests[]`` with ``fullTitle`` and ``err``).

Ids are ``file::suite::test`` with the file relative to the repository. An assertion's
message is its first line (``expect(received).toBe(expected) ...``); the detail keeps the
lines that follow it (``Expected: 5``, ``Received: -1``) and the stack frames in the
repository's own files, relative (``at test/calc.test.js:3:58``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from patchwright.verify.runners.common import ANSI, add_case, clip, relative
from patchwright.verify.testmodel import TestCase, TestOutcome, TestRun

NODE_REPORTER = r"""// patchwright: one JSON line per finished node:test test (see verify/runners/jsreports.py)
const stacks = new Map();
const stderr = new Map();
const text = (e) => {
  if (!e) return '';
  const cause = e.cause && typeof e.cause === 'object' ? e.cause : null;
  const inner = cause && (cause.stack || cause.message) ? cause : e;
  return String(inner.stack || inner.message || inner);
};
export default async function* reporter(source) {
  for await (const event of source) {
    const d = event.data || {};
    const file = d.file || '';
    if (event.type === 'test:start') {
      const stack = (stacks.get(file) || []).slice(0, d.nesting);
      stack[d.nesting] = d.name;
      stacks.set(file, stack);
    } else if (event.type === 'test:stderr' || event.type === 'test:stdout') {
      const kept = (stderr.get(file) || '') + (d.message || '');
      stderr.set(file, kept.slice(-4000));
    } else if (event.type === 'test:pass' || event.type === 'test:fail') {
      const details = d.details || {};
      if (details.type === 'suite' && event.type === 'test:pass') continue;
      const error = details.error;
      const out = {
        names: [...(stacks.get(file) || []).slice(0, d.nesting), d.name],
        file, line: d.line || null,
        outcome: event.type === 'test:fail' ? 'failed' : (d.skip || d.todo ? 'skipped' : 'passed'),
        kind: error ? (error.failureType || '') : '',
        suite: details.type === 'suite',
        error: error ? text(error) : '',
        output: event.type === 'test:fail' ? (stderr.get(file) || '') : '',
      };
      yield JSON.stringify(out) + '\n';
    }
  }
}
"""

_FRAME = re.compile(r"^\s*at (?:.*? \()?(?:file://)?([^\s()]+?):(\d+):(\d+)\)?\s*$")
_ANY_FRAME = re.compile(r"^\s*at ")


def failure_text(raw: str, root: Path) -> tuple[str, str]:
    """(message, detail) of a JavaScript error: its first line, then the lines that follow
    it before the stack, and up to three stack frames in the repository's own files."""
    lines = ANSI.sub("", raw).replace(f"{root}/", "").splitlines()
    head: list[str] = []
    frames: list[str] = []
    for line in lines:
        if _ANY_FRAME.match(line):
            m = _FRAME.match(line)
            rel = relative(m.group(1), root) if m else None
            mine = rel is not None and "node_modules/" not in rel and (root / rel).is_file()
            if m and mine and len(frames) < 3:
                frames.append(f"at {rel}:{m.group(2)}:{m.group(3)}")
            continue
        if not frames:
            head.append(line.rstrip())
    body = [x for x in head if x.strip()]
    if not body:
        return "", clip(frames)
    message = re.sub(r"^(?:Error|AssertionError)(?: \[ERR_ASSERTION\])?: ", "", body[0].strip())
    rest = body[1:12]
    if message.endswith(":") and rest:  # node's assert: "...strictly equal:" then "-1 !== 5"
        message, rest = f"{message} {rest[0].strip()}", rest[1:]
    return message[:300], clip([*rest, *frames], 16, 1800)


def _outcome(status: str) -> TestOutcome:
    if status == "passed":
        return "passed"
    if status == "failed":
        return "failed"
    return "skipped"  # pending, skipped, todo, disabled, focused-away


def read_node(run: TestRun, report: Path, root: Path) -> None:
    """Cases from ``NODE_REPORTER``'s lines."""
    try:
        lines = report.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict):
            continue
        _node_case(run, item, root)
    run.per_test = True


def _node_case(run: TestRun, item: dict[str, Any], root: Path) -> None:
    file = relative(str(item.get("file") or ""), root) or ""
    names = [str(n) for n in item.get("names") or []]
    if item.get("kind") == "subtestsFailed":
        return  # its subtests carry the failure
    whole_file = len(names) == 1 and (relative(names[0], root) or names[0]) == file and file
    test_id = file if whole_file else "::".join([file, *names]) if file else "::".join(names)
    outcome: TestOutcome = item.get("outcome") if item.get("outcome") in (
        "passed", "failed", "skipped") else "error"  # type: ignore[assignment]  # fmt: skip
    message = detail = ""
    if outcome == "failed":
        message, detail = failure_text(str(item.get("error") or ""), root)
        if whole_file:
            outcome = "error"
            said, more = failure_text(str(item.get("output") or ""), root)
            message, detail = said or message, more or detail
    line = item.get("line") if isinstance(item.get("line"), int) else None
    add_case(run, TestCase(test_id, outcome, file, line, message, detail))


def _load(report: Path) -> Any:
    try:
        return json.loads(report.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def read_jest(run: TestRun, report: Path, root: Path) -> None:
    """Cases from a jest or vitest ``--json`` report; nothing (judged by exit code) when
    the runner wrote none."""
    data = _load(report)
    if not isinstance(data, dict) or not isinstance(data.get("testResults"), list):
        return
    for suite in data["testResults"]:
        if isinstance(suite, dict):
            _jest_suite(run, suite, root)
    run.per_test = True


def _jest_suite(run: TestRun, suite: dict[str, Any], root: Path) -> None:
    file = relative(str(suite.get("name") or ""), root) or str(suite.get("name") or "")
    tests = [a for a in suite.get("assertionResults") or [] if isinstance(a, dict)]
    for test in tests:
        names = [*(str(t) for t in test.get("ancestorTitles") or []), str(test.get("title"))]
        outcome = _outcome(str(test.get("status")))
        message = detail = ""
        if outcome == "failed":
            raw = "\n".join(str(m) for m in test.get("failureMessages") or [])
            message, detail = failure_text(raw, root)
        location = test.get("location")
        line = location.get("line") if isinstance(location, dict) else None
        add_case(run, TestCase("::".join([file, *names]), outcome, file,
                               line if isinstance(line, int) else None, message, detail))  # fmt: skip
    if suite.get("status") == "failed" and not any(
        _outcome(str(t.get("status"))) == "failed" for t in tests
    ):
        message, detail = failure_text(str(suite.get("message") or ""), root)
        add_case(run, TestCase(file, "error", file, None,
                               message or "the test file failed to run", detail))  # fmt: skip


def read_mocha(run: TestRun, report: Path, stdout: str, root: Path) -> None:
    """Cases from mocha's ``json`` reporter: the report file, or (older mocha without the
    ``output`` option) the JSON object it printed last on stdout."""
    data = _load(report)
    if data is None:
        start = stdout.rfind('{\n  "stats"')
        try:
            data = json.loads(stdout[start:]) if start >= 0 else None
        except ValueError:
            data = None
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        return
    pending = {(t.get("file"), t.get("fullTitle")) for t in data.get("pending") or []
               if isinstance(t, dict)}  # fmt: skip
    for test in data["tests"]:
        if isinstance(test, dict):
            _mocha_case(run, test, root, (test.get("file"), test.get("fullTitle")) in pending)
    for test in data.get("failures") or []:  # hooks fail outside any test
        if isinstance(test, dict) and str(test.get("title", "")).startswith('"'):
            _mocha_case(run, test, root, False)
    run.per_test = True


def _mocha_case(run: TestRun, test: dict[str, Any], root: Path, pending: bool) -> None:
    file = relative(str(test.get("file") or ""), root) or ""
    title = str(test.get("title") or "")
    full = str(test.get("fullTitle") or title)
    suite = full[: -len(title)].strip() if title and full.endswith(title) else ""
    test_id = "::".join(p for p in (file, suite, title) if p)
    found = test.get("err")
    err: dict[str, Any] = found if isinstance(found, dict) else {}
    failed = bool(err) and bool(err.get("message") or err.get("stack"))
    outcome: TestOutcome = "failed" if failed else ("skipped" if pending else "passed")
    message = detail = ""
    if failed:
        raw = str(err.get("stack") or err.get("message") or "")
        message, detail = failure_text(raw, root)
        if not message:
            message = str(err.get("message") or "")[:300]
    if test_id in run.cases and run.cases[test_id].outcome == outcome:
        return
    add_case(run, TestCase(test_id, outcome, file, None, message, detail))
