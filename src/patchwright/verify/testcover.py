"""Which lines each failing test runs: line coverage of the baseline's failing tests, taken
once, before any change.

The tests run again by node id, under the repository's own pytest command and in the sandbox
like every test run, with a small plugin (``cover_plugin.py``, put first on ``PYTHONPATH`` and
loaded with ``-p``) that starts coverage.py with one context per test. The plugin runs in the
repository's interpreter; when coverage.py is not importable there, the runner is not pytest,
or the run breaks, nothing is measured and ``note`` says why — never an error.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.sandbox import Sandbox
from patchwright.verify.testrun import is_pytest
from patchwright.verify.tools import describe_failure, scratch_dir, tail

PLUGIN = "patchwright_cover_plugin"
MAX_TESTS = 100  # node ids on one command line; the rest are not measured (noted)

Lines = Mapping[str, frozenset[int]]  # path -> executed line numbers


@dataclass(frozen=True)
class TestLines:
    """Per test id, the lines of each repository file it ran; ``shared``: what ran outside
    any test (imports, collection). Empty with a ``note`` when nothing could be measured."""

    __test__ = False  # not a pytest test class

    tests: Mapping[str, Lines] = field(default_factory=dict)
    shared: Lines = field(default_factory=dict)
    note: str = ""
    seconds: float = 0.0


def cover_tests(
    root: Path,
    sandbox: Sandbox,
    cmd: str | None,
    test_ids: Collection[str],
    *,
    timeout: float = 600.0,
) -> TestLines:
    """Run ``test_ids`` with ``cmd`` (a pytest command) under per-test coverage."""
    if not test_ids:
        return TestLines()
    if not cmd or not is_pytest(cmd):
        return TestLines(note=f"no line coverage: `{cmd}` is not a pytest command")
    started = time.monotonic()
    ids = sorted(test_ids)[:MAX_TESTS]
    out = scratch_dir(sandbox, "cover")
    shutil.rmtree(out)
    out.mkdir()
    shutil.copyfile(Path(__file__).with_name("cover_plugin.py"), out / f"{PLUGIN}.py")
    pythonpath = os.pathsep.join(p for p in (str(out), os.environ.get("PYTHONPATH", "")) if p)
    full = f"{_cover_command(cmd, root, out)} -p {PLUGIN} -p no:cacheprovider -q " + " ".join(
        shlex.quote(i) for i in ids
    )
    env = {"PYTHONPATH": pythonpath, "PATCHWRIGHT_COVER_DIR": str(out)}
    result = sandbox.run(full, timeout=timeout, cwd=root, extra_env=env)
    lines = _read(out)
    lines = TestLines(lines.tests, lines.shared, lines.note, time.monotonic() - started)
    if lines.note or lines.tests:
        return _with_cap_note(lines, len(test_ids))
    output = (result.stdout + "\n" + result.stderr).strip()
    why = describe_failure(result) or f"exited {result.exit_code}"
    return TestLines(
        note=f"no line coverage: the run {why} and recorded nothing:\n{tail(output, 6, 400)}",
        seconds=lines.seconds,
    )


def _cover_command(cmd: str, root: Path, plugin_dir: Path) -> str:
    """``cmd`` less the files and folders it names (the node ids choose the tests), with the
    plugin's folder added to a ``PYTHONPATH=`` it sets."""
    if any(c in cmd for c in ";&|<>()$`"):
        return cmd  # a shell line: left as it is (its paths run too, which costs time only)
    try:
        words = shlex.split(cmd)
    except ValueError:
        return cmd
    start = next(
        (i for i, w in enumerate(words) if w in ("pytest", "py.test") or w.endswith("/pytest")), 0
    )
    kept = [
        f"{w}{os.pathsep}{plugin_dir}" if i < start and w.startswith("PYTHONPATH=") else w
        for i, w in enumerate(words)
        if i <= start or w.startswith("-") or not (root / w.split("::")[0]).exists()
    ]
    return shlex.join(kept)


def _read(out: Path) -> TestLines:
    tests: dict[str, dict[str, set[int]]] = {}
    errors: list[str] = []
    for report in sorted(out.glob("cover-*.json")):
        try:
            payload = json.loads(report.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(payload.get("error"), str):
            errors.append(payload["error"])
        for context, files in (payload.get("contexts") or {}).items():
            merged = tests.setdefault(str(context), {})
            for path, numbers in files.items():
                merged.setdefault(str(path), set()).update(int(n) for n in numbers)
    frozen = {
        test: {path: frozenset(n) for path, n in files.items()} for test, files in tests.items()
    }
    shared = frozen.pop("", {})
    note = f"no line coverage: {errors[0]}" if errors and not frozen else ""
    return TestLines(frozen, shared, note)


def _with_cap_note(lines: TestLines, wanted: int) -> TestLines:
    if wanted <= MAX_TESTS or lines.note:
        return lines
    note = f"line coverage taken for {MAX_TESTS} of {wanted} failing tests"
    return TestLines(lines.tests, lines.shared, note, lines.seconds)
