"""Running tests in an instance's environment, the log read the official way — optionally
under coverage.py with per-test contexts (for SBFL).

:func:`run_tests` runs any command (the fair mode's: the repository's own test files at the
base commit, and the agent's reproduction test); :func:`run_instance_tests` runs the hidden
tests — the official command on the test patch's files, the test patch applied for the run
only — which only ``--oracle-tests`` and ``swebench eval`` do."""

from __future__ import annotations

import re
import shlex
import subprocess
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.envs import InstallSpec, InstanceSandbox, test_files_of
from patchwright.modes.swebench.grading import Grade, StatusMap, grade, parse_log
from patchwright.modes.swebench.instances import Instance

COVERAGE_RC = """[run]
dynamic_context = test_function
relative_files = True
"""


class PatchError(RuntimeError):
    """A patch did not apply; the message carries git's reason."""


@dataclass
class TestReport:
    """One run of the instance's tests."""

    command: str
    exit_code: int | None
    log: str
    status: StatusMap = field(default_factory=dict)
    parser: str = ""
    seconds: float = 0.0
    problem: str | None = None  # the run itself broke (timeout, sandbox refusal)

    def grade(self, instance: Instance) -> Grade:
        return grade(self.status, instance.fail_to_pass, instance.pass_to_pass)


def git_apply(repo: Path, patch: str, *, reverse: bool = False, check: bool = False) -> None:
    """``git apply`` a patch to the checkout (``patch --fuzz`` as the harness's fallback).

    All or nothing: a patch that does not apply leaves the checkout as it was."""
    if not patch.strip():
        return
    flags = ["-R"] if reverse else []
    if check:
        flags.append("--check")
    argv = ["git", "apply", "--whitespace=nowarn", *flags, "-"]
    proc = subprocess.run(argv, cwd=repo, input=patch, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return
    fuzz = [
        "patch",
        "--batch",
        "--fuzz=5",
        "-p1",
        "-f",
        "--no-backup-if-mismatch",
        *(["-R"] if reverse else []),
    ]
    # patch applies the hunks it can and leaves .rej files for the rest, so it is tried
    # first with --dry-run, and only run for real where every hunk applies
    dry_run = [*fuzz, "--dry-run"]
    for attempt in [dry_run] if check else [dry_run, fuzz]:
        retry = subprocess.run(
            attempt, cwd=repo, input=patch, capture_output=True, text=True, check=False
        )
        if retry.returncode != 0:
            raise PatchError(proc.stderr.strip()[-800:] or retry.stdout.strip()[-800:])


@contextmanager
def test_patch_applied(repo: Path, test_patch: str) -> Iterator[None]:
    """The hidden tests on disk for the duration of a test run, and gone again after."""
    git_apply(repo, test_patch)
    try:
        yield
    finally:
        git_apply(repo, test_patch, reverse=True)


def test_command(spec: InstallSpec, instance: Instance, coverage_file: Path | None) -> str:
    """The official command on the test patch's files; under coverage when asked."""
    return with_coverage(spec.test_command(test_files_of(instance.test_patch)), coverage_file)


def with_coverage(command: str, coverage_file: Path | None) -> str:
    """``command`` run under coverage.py with per-test contexts, where it is a pytest run
    (others cannot be measured per test) and a coverage file is asked for."""
    if coverage_file is None:
        return command
    words = shlex.split(command)
    assignments = []
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        assignments.append(words.pop(0))
    if not words or words[0] not in ("pytest", "py.test"):
        return command  # only pytest runs can be measured per test
    rc = coverage_file.parent / "coveragerc"
    rc.write_text(COVERAGE_RC, encoding="utf-8")
    env = shlex.join([*assignments, f"COVERAGE_FILE={coverage_file}"])
    return (
        f"{env} python -m coverage run --rcfile={shlex.quote(str(rc))} "
        f"-m pytest {shlex.join(words[1:])}"
    )


def run_instance_tests(
    env: InstanceSandbox,
    instance: Instance,
    spec: InstallSpec,
    *,
    timeout: float = 900.0,
    coverage_file: Path | None = None,
) -> TestReport:
    """Run the instance's hidden tests, the test patch applied for the run (see the module
    docstring)."""
    command = test_command(spec, instance, coverage_file)
    staged = test_patch_applied(env.repo, instance.test_patch)
    return run_tests(env, instance.repo, command, timeout=timeout, staged=staged)


def run_tests(
    env: InstanceSandbox, repo_name: str, command: str, *, timeout: float = 900.0,
    staged: AbstractContextManager[None] | None = None,
) -> TestReport:  # fmt: skip
    """Run ``command`` in the checkout (with ``staged`` on disk for the run only) and read
    its log with the official parser of ``repo_name`` (``owner/name``)."""
    started = time.monotonic()
    with staged or nullcontext():
        result = env.run(command, timeout=timeout)
    log = result.stdout + ("\n" + result.stderr if result.stderr else "")
    status, parser = parse_log(repo_name, log)
    report = TestReport(command, result.exit_code, log, status, parser,
                        time.monotonic() - started)  # fmt: skip
    if result.timed_out:
        report.problem = f"the tests timed out after {timeout:.0f}s"
    elif result.blocked_by:
        report.problem = f"the sandbox blocked the test run ({result.blocked_by})"
    elif not status:
        report.problem = f"no test outcome could be read from the log (exit {result.exit_code})"
    return report
