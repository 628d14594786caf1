"""Tools that run things: ``run`` (a command in the sandbox, under the policy: ``ask``
commands go to the approver, ``forbidden`` ones never run) and ``run_tests`` (the gates and
the task's definition of done on the change as it stands, or chosen tests)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from patchwright.agent.tools.base import FunctionTool, Observation, ToolError, arg, schema
from patchwright.agent.tools.bench import Workbench
from patchwright.sandbox import classify
from patchwright.verify.testrun import is_pytest, run_tests
from patchwright.verify.tools import tail

MAX_TIMEOUT = 600


def run_command(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    command = arg(args, "command", str).strip()
    if not command:
        raise ToolError("the command is empty")
    verdict = classify(command, bench.root)
    if verdict.level == "forbidden":
        return Observation(f"refused by policy ({verdict.rule}): {verdict.reason}", ok=False)
    if verdict.level == "ask" and not bench.approve_command(command, verdict.reason):
        return Observation(
            f"not run: {verdict.reason} needs the user's approval, and it was not given", ok=False
        )
    timeout = max(1, min(arg(args, "timeout", int, int(bench.command_timeout)), MAX_TIMEOUT))
    result = bench.sandbox.run(command, cwd=bench.root, timeout=timeout)
    head = f"exit code {result.exit_code}" + (" (timed out)" if result.timed_out else "")
    if result.blocked_by:
        head += f"; blocked by the sandbox: {result.blocked_by}"
    parts = [head]
    if result.stdout.strip():
        parts.append("stdout:\n" + tail(result.stdout, 60, 3000))
    if result.stderr.strip():
        parts.append("stderr:\n" + tail(result.stderr, 30, 1500))
    return Observation("\n".join(parts), ok=result.exit_code == 0)


def run_tests_tool(bench: Workbench, args: Mapping[str, Any]) -> Observation:
    targets = [str(t) for t in arg(args, "targets", list, [])]
    if targets:
        return _chosen_tests(bench, targets)
    check = bench.check(bench.working.changed_paths())
    if check.not_run:
        return Observation("the checks could not run — not a problem of your change, and not "
                           "one you can fix:\n" + check.summary, ok=False)  # fmt: skip
    if check.solved:
        return Observation("all gates passed and the task's check passes")
    if check.ok:
        return Observation("all gates passed (no new problems); " + (check.unproved_note() or ""))
    return Observation("not done yet:\n" + check.summary, ok=False)


def _chosen_tests(bench: Workbench, targets: list[str]) -> Observation:
    cmd = bench.test_cmd
    if not cmd or not is_pytest(cmd):
        raise ToolError("chosen tests need a pytest test command; call run_tests without targets")
    full = f"{cmd} {' '.join(shlex.quote(t) for t in targets)}"
    run = run_tests(bench.root, bench.sandbox, full, timeout=bench.test_timeout)
    if run.problem:
        return Observation(f"{full}: {run.problem}\n{tail(run.output, 30, 2000)}", ok=False)
    lines = [
        f"{c.outcome}: {c.id}" + (f" — {c.message}" if c.message else "")
        for c in run.cases.values()
    ]
    return Observation("\n".join(lines) or tail(run.output), ok=not run.failing)


def running_tools(bench: Workbench) -> list[FunctionTool]:
    return [
        FunctionTool("run", "Run a shell command in the repository (sandboxed, network off).",
                     schema(["command"], command={"type": "string"}, timeout={"type": "integer"}),
                     lambda a: run_command(bench, a)),
        FunctionTool("run_tests", "Run the gates and the task's tests on your change (or only "
                     "the given pytest test ids) and report what fails.",
                     schema((), targets={"type": "array", "items": {"type": "string"}}),
                     lambda a: run_tests_tool(bench, a)),
    ]  # fmt: skip
