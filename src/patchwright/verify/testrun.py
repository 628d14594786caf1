"""Running a test command in the sandbox and reading per-test outcomes from it.

pytest gets ``--junitxml`` (xunit1, which carries file and line) and the report is parsed;
``--continue-on-collection-errors`` keeps one broken test module from hiding all the others.
node's runner, jest, vitest, mocha, ``go test`` and ``cargo test`` are asked for their own
reports (:mod:`patchwright.verify.runners`); any other command is judged by its exit code
alone (``per_test`` False).
"""

from __future__ import annotations

import os
import re
import shlex
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

from patchwright.sandbox import ExecResult, Sandbox
from patchwright.verify.runners import Plan, plan_for
from patchwright.verify.runners.cargo_values import add_values
from patchwright.verify.runners.js_values import add_js_values
from patchwright.verify.testmodel import TestCase, TestOutcome, TestRun, is_pytest
from patchwright.verify.tools import describe_failure, repo_venv, scratch_dir, stable, tail

__all__ = ["TestCase", "TestOutcome", "TestRun", "failure_gist", "is_pytest", "run_tests"]


def run_tests(
    root: Path,
    sandbox: Sandbox,
    cmd: str,
    *,
    timeout: float = 600.0,
    extra_env: Mapping[str, str] | None = None,
) -> TestRun:
    """Run ``cmd`` in ``root`` inside the sandbox and collect per-test outcomes."""
    scratch = scratch_dir(sandbox, "tests")
    plan = _pytest_plan(cmd, scratch) if is_pytest(cmd) else plan_for(root, cmd, scratch)
    env = {**venv_env(root), **(extra_env or {}), **plan.env}
    result = sandbox.run(plan.command, timeout=timeout, cwd=root, extra_env=env)
    if plan.output is not None:
        output = plan.output(result)
    else:
        output = (result.stdout + ("\n" + result.stderr if result.stderr else "")).strip()
    output = _relative_to(stable(output), root)
    run = TestRun(command=cmd, exit_code=result.exit_code, output=output, note=plan.note)
    run.problem = describe_failure(result)
    if result.blocked_by and result.exit_code is None:
        run.blocked = result.blocked_by  # refused before it started
    elif result.blocked_by and plan.reports and not result.killed_by:
        run.problem = None  # a test the sandbox denied fails in the report, the others count
    run.missing_tool = _missing_tool(result.exit_code, output, cmd)
    if run.problem or run.missing_tool:
        return run
    plan.read(run, result)
    if run.per_test:
        run.runner = plan.runner
    if run.runner == "cargo":
        add_values(run, root, sandbox, cmd, timeout)
    elif run.runner == "node" or not run.per_test:
        add_js_values(run, root, sandbox, plan.command, env, timeout)
    return run


def _relative_to(output: str, root: Path) -> str:
    """Paths under the repository as the repository names them: ``main.test.js:9``, not
    ``/tmp/patchwright-task-qfrt22z2/main.test.js:9`` (node, go and cargo print absolute
    paths; the folder differs from one run to the next, so the same failure read
    differently each time)."""
    for folder in dict.fromkeys([root, root.resolve()]):
        if folder.parent != folder:  # never "/": every absolute path would lose its root
            output = output.replace(f"{folder}{os.sep}", "")
    return output


def venv_env(root: Path) -> dict[str, str]:
    """A test command runs as in the repository's activated virtualenv when it has one:
    ``python`` and ``pytest`` in ``--test-cmd "python -m pytest"`` are the venv's, not
    whichever the caller's PATH finds first (which may lack the project)."""
    venv = repo_venv(root)
    if venv is None:
        return {}
    path = os.environ.get("PATH", os.defpath)
    return {"PATH": f"{venv / 'bin'}{os.pathsep}{path}", "VIRTUAL_ENV": str(venv)}


def _pytest_plan(cmd: str, scratch: Path) -> Plan:
    report = scratch / "junit.xml"
    report.unlink(missing_ok=True)
    full = (  # -vvv: assertion messages show whole values, not "[1, 2, ...]"
        f"{cmd} --junitxml={shlex.quote(str(report))} -o junit_family=xunit1 "
        "-p no:cacheprovider --continue-on-collection-errors -vvv"
    )

    def read(run: TestRun, result: ExecResult) -> None:
        _read_junit(run, report)

    return Plan(full, "pytest", read=read, reports=True)


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
            message = stable(child.get("message") or "").strip()
            detail = failure_gist(stable(child.text or ""))
            break
        if child.tag == "skipped":
            outcome = "skipped"
            message = (child.get("message") or "").strip()
    if not path and classname and not name:
        path = classname.replace(".", "/") + ".py"
    return TestCase(
        test_id, outcome, path, line, message.splitlines()[0] if message else "", detail
    )


LOCATION = re.compile(r"^\S+:\d+: ")


def failure_gist(text: str, max_lines: int = 9, chars: int = 1500) -> str:
    """What a failing test says, in a few lines: where it failed (the last two traceback
    locations), the statement that failed (``>`` lines: the test's own, and the innermost
    when it failed deeper) and the first ``E`` lines (the assertion with its values, without
    difflib's ``?`` guide lines), else the tail."""
    lines = text.rstrip().splitlines()
    errors: list[str] = []
    for line in lines:
        if line.startswith("E ") and "Full diff:" in line:
            break  # the item-by-item diff repeats what the lines above say
        if line.startswith("E ") and line[1:].strip() and not _GUIDE.match(line):
            errors.append(line)
    if not errors:
        return tail(text, lines=12, chars=chars)
    where = [x for x in lines if LOCATION.match(x)][-2:]
    failed = [i for i, x in enumerate(lines) if x.startswith(">")]
    source = list(dict.fromkeys(_statement(lines, i) for i in failed[:1] + failed[-1:]))
    kept = [*where, *source, *errors[: max_lines - len(where) - len(source)]]
    return "\n".join(kept)[:chars]


def _statement(lines: list[str], at: int, chars: int = 300) -> str:
    """The failed statement pytest marks with ``>`` at ``lines[at]``, on one line with the
    lines it continues on (``self.assertEqual(`` alone says nothing)."""
    parts = [lines[at][1:].strip()]
    for line in lines[at + 1 :]:
        if not line.strip() or line.startswith(("E ", ">")) or LOCATION.match(line):
            break
        if _CARETS.match(line):
            continue  # Python's ^^^^ under the failing expression
        parts.append(line.strip())
    text = " ".join(parts)
    return "> " + (text if len(text) <= chars else text[: chars - 2].rstrip() + " …")


_CARETS = re.compile(r"^[\s^~]+$")
_GUIDE = re.compile(r"^E\s+\?\s[\s^+\-]*$")


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
