"""Running a test command in the sandbox and reading per-test outcomes from it.

pytest gets ``--junitxml`` (xunit1, which carries file and line) and the report is parsed;
``--continue-on-collection-errors`` keeps one broken test module from hiding all the others.
``go test`` and ``cargo test`` outputs are parsed from their text; any other runner is
judged by its exit code alone (``per_test`` False).
"""

from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from patchwright.sandbox import Sandbox
from patchwright.verify.tools import describe_failure, scratch_dir, tail

TestOutcome = Literal["passed", "failed", "error", "skipped"]


@dataclass(frozen=True)
class TestCase:
    """One test's outcome. ``message`` is the assertion line; ``detail`` the traceback tail."""

    id: str
    outcome: TestOutcome
    path: str = ""
    line: int | None = None
    message: str = ""
    detail: str = ""


@dataclass
class TestRun:
    """A whole run: per-test cases when the runner reports them, the exit code, the output.

    ``problem`` is set when the run itself broke (timed out, blocked, no report written,
    runner missing) — then the cases cannot be trusted. ``missing_tool`` says why the
    command never started (not found, not executable, pytest not installed), ``blocked``
    which sandbox rule refused to start it.
    """

    command: str
    exit_code: int | None
    output: str
    cases: dict[str, TestCase] = field(default_factory=dict)
    per_test: bool = False
    problem: str | None = None
    missing_tool: str | None = None
    blocked: str | None = None

    @property
    def failing(self) -> frozenset[str]:
        return frozenset(i for i, c in self.cases.items() if c.outcome in ("failed", "error"))

    @property
    def passing(self) -> frozenset[str]:
        return frozenset(i for i, c in self.cases.items() if c.outcome == "passed")

    @property
    def green(self) -> bool:
        """The run completed and reported success (exit 0, or pytest's 5: no tests)."""
        return self.problem is None and (self.exit_code == 0 or self.collected_nothing)

    @property
    def collected_nothing(self) -> bool:
        """pytest found no test to run (its exit code 5; for another runner 5 is a failure)."""
        return self.exit_code == 5 and not self.cases and is_pytest(self.command)

    @property
    def cannot_start(self) -> str | None:
        """Why the command could not start at all (then nothing it says can be judged)."""
        if self.missing_tool:
            return self.missing_tool
        return f"the sandbox blocked it ({self.blocked})" if self.blocked else None


def is_pytest(cmd: str) -> bool:
    try:
        words = shlex.split(cmd)
    except ValueError:
        return False
    return any(w == "pytest" or w.endswith("/pytest") or w == "py.test" for w in words)


def run_tests(
    root: Path,
    sandbox: Sandbox,
    cmd: str,
    *,
    timeout: float = 600.0,
    extra_env: Mapping[str, str] | None = None,
) -> TestRun:
    """Run ``cmd`` in ``root`` inside the sandbox and collect per-test outcomes."""
    full = cmd
    report: Path | None = None
    if is_pytest(cmd):
        report = scratch_dir(sandbox, "tests") / "junit.xml"
        report.unlink(missing_ok=True)
        full = (  # -vvv: assertion messages show whole values, not "[1, 2, ...]"
            f"{cmd} --junitxml={shlex.quote(str(report))} -o junit_family=xunit1 "
            "-p no:cacheprovider --continue-on-collection-errors -vvv"
        )
    result = sandbox.run(full, timeout=timeout, cwd=root, extra_env=extra_env)
    output = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
    run = TestRun(command=cmd, exit_code=result.exit_code, output=output)
    run.problem = describe_failure(result)
    if result.blocked_by and result.exit_code is None:
        run.blocked = result.blocked_by  # refused before it started
    elif result.blocked_by and report is not None and not result.killed_by:
        run.problem = None  # a test the sandbox denied fails in the report, the others count
    run.missing_tool = _missing_tool(result.exit_code, output, cmd)
    if run.problem or run.missing_tool:
        return run
    if report is not None:
        _read_junit(run, report)
    elif cmd.strip().startswith("go "):
        _read_go(run)
    elif cmd.strip().startswith("cargo "):
        _read_cargo(run)
    return run


_NOT_FOUND = re.compile(r"^.*(?:command not found|: not found|Permission denied).*$", re.M)


def _missing_tool(code: int | None, output: str, cmd: str) -> str | None:
    """Why the test command never started, in the shell's own words where it gave them."""
    if m := re.search(r"No module named (pytest|'?pytest'?)\b", output):
        return f"pytest is not installed for this interpreter ({m.group(0)})"
    if code in (126, 127):
        said = _NOT_FOUND.search(output)
        if said:
            return said.group(0).strip()
        try:
            first = shlex.split(cmd)[0] if cmd.strip() else cmd
        except ValueError:
            first = cmd
        return f"{first}: " + ("command not found" if code == 127 else "cannot be executed")
    return None


def _read_junit(run: TestRun, report: Path) -> None:
    if not report.is_file():
        if run.exit_code not in (0, 5):
            run.problem = f"pytest exited {run.exit_code} without writing a report"
        return
    try:
        tree = ET.parse(report)
    except ET.ParseError as exc:
        run.problem = f"unreadable junit report: {exc}"
        return
    run.per_test = True
    for case in tree.iter("testcase"):
        tc = _junit_case(case)
        run.cases[tc.id] = tc
    if run.exit_code not in (0, 1, 5) and not run.failing:
        run.problem = f"pytest exited {run.exit_code} (interrupted or internal error)"


def _junit_case(case: ET.Element) -> TestCase:
    name = case.get("name", "")
    classname = case.get("classname", "")
    path = case.get("file", "")
    line_attr = case.get("line")
    line = int(line_attr) + 1 if line_attr and line_attr.isdigit() else None
    test_id = _test_id(path, classname, name)
    outcome: TestOutcome = "passed"
    message = detail = ""
    for child in case:
        if child.tag in ("failure", "error"):
            outcome = "failed" if child.tag == "failure" else "error"
            message = (child.get("message") or "").strip()
            detail = failure_gist(child.text or "")
            break
        if child.tag == "skipped":
            outcome = "skipped"
            message = (child.get("message") or "").strip()
    if not path and classname and not name:
        path = classname.replace(".", "/") + ".py"
    return TestCase(
        test_id, outcome, path, line, message.splitlines()[0] if message else "", detail
    )


_LOCATION = re.compile(r"^\S+:\d+: ")


def failure_gist(text: str, max_lines: int = 8, chars: int = 1500) -> str:
    """What a failing test says, in a few lines: where it failed (the last two traceback
    locations) and the first ``E`` lines (the assertion with its values), else the tail."""
    lines = text.rstrip().splitlines()
    errors: list[str] = []
    for line in lines:
        if line.startswith("E ") and "Full diff:" in line:
            break  # the item-by-item diff repeats what the lines above say
        if line.startswith("E ") and line[1:].strip():
            errors.append(line)
    if not errors:
        return tail(text, lines=12, chars=chars)
    where = [x for x in lines if _LOCATION.match(x)][-2:]
    kept = [*where, *errors[: max_lines - len(where)]]
    return "\n".join(kept)[:chars]


def _test_id(path: str, classname: str, name: str) -> str:
    """``tests/test_a.py::TestX::test_y`` from junit's file/classname/name."""
    if not path:
        return f"{classname}::{name}" if name else classname
    module = path[:-3].replace("/", ".") if path.endswith(".py") else path
    if not classname and name == module:
        return path  # a collection error of the whole module
    rest = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
    parts = [path, *rest.split(".")] if rest else [path]
    return "::".join([*parts, name]) if name else path


_GO_RESULT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)", re.M)
_CARGO_RESULT = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)", re.M)


def _read_go(run: TestRun) -> None:
    outcomes: dict[str, TestOutcome] = {"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}
    for status, name in _GO_RESULT.findall(run.output):
        run.cases[name] = TestCase(name, outcomes[status])
    run.per_test = bool(run.cases)


def _read_cargo(run: TestRun) -> None:
    outcomes: dict[str, TestOutcome] = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}
    for name, status in _CARGO_RESULT.findall(run.output):
        run.cases[name] = TestCase(name, outcomes[status])
    run.per_test = bool(run.cases)
