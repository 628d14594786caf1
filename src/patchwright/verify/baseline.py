"""The baseline: the state of the tree before a change, so that gates block only on what the
change made worse.

How it stays cheap and correct:

* **Tests** are run once, at baseline time, and every per-test outcome is kept.
* **Syntax, lint and types** are *not* run at baseline time. Instead the baseline keeps the
  pre-edit text of every checkable source file (``.py``, ``.js``, ``.json``, ``.sh``, ...;
  at most 1 MB each and 64 MB in all) in memory. When a gate later checks a touched file
  whose text differs, it checks the old text too — ruff reads it from stdin with
  ``--stdin-filename`` and mypy via ``--shadow-file``, so the repository's own config
  applies to both — and memoizes the result here. A touched file whose text did not change
  needs no second run: all its problems are old by definition. A file that did not exist
  at baseline time has no old problems; one that existed but was not kept (too large) is
  reported as "baseline unknown" and its problems count as new.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from patchwright.sandbox import Sandbox
from patchwright.verify.model import Problem
from patchwright.verify.smoke import SmokeOutcome, run_smoke
from patchwright.verify.testrun import TestRun, run_tests
from patchwright.workspace.errors import WorkspaceError
from patchwright.workspace.files import list_files
from patchwright.workspace.textfile import decode_bytes

CHECKABLE = frozenset(
    ".py .pyi .js .mjs .cjs .jsx .ts .mts .cts .tsx .json .toml .yaml .yml .sh .bash .css "
    ".go .rs .java .c .h .cc .cpp .cxx .hpp .cs .rb .php .mod .sum .lock".split()
)
MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 64 * 1024 * 1024


@dataclass
class Baseline:
    """The tree before the change: kept source texts, test outcomes, memoized old problems."""

    root: Path
    texts: dict[str, str]
    paths: frozenset[str]
    tests: TestRun | None = None
    test_cmd: str | None = None
    smoke: SmokeOutcome | None = None
    seconds: float = 0.0
    memo: dict[tuple[str, str], list[Problem]] = field(default_factory=dict)
    type_memo: dict[tuple[str, ...], list[Problem]] = field(default_factory=dict)

    def knows(self, path: str) -> bool:
        """True when the old content of ``path`` is known (kept, or absent at baseline)."""
        return path in self.texts or path not in self.paths

    def old_text(self, path: str) -> str | None:
        """The pre-edit text of ``path``; None when it did not exist (or is unknown)."""
        return self.texts.get(path)

    @property
    def failing_tests(self) -> frozenset[str]:
        """Ids of tests that failed or errored before the change."""
        return self.tests.failing if self.tests else frozenset()

    @property
    def failure_output(self) -> str:
        """Short report of the baseline's failing tests (for the agent's first prompt)."""
        if self.tests is None:
            return ""
        if not self.tests.failing:
            if self.tests.green or self.tests.missing_tool:
                return ""
            from patchwright.verify.tools import exited, said, tail

            what = self.tests.problem or exited(self.tests.command, self.tests.exit_code)
            return f"{self.tests.command} {what}:\n{tail(said(self.tests.output), 25, 2500)}"
        from patchwright.verify.summary import describe_tests

        return describe_tests(self.tests, sorted(self.tests.failing))


def snapshot_texts(root: Path) -> tuple[dict[str, str], frozenset[str]]:
    """Texts of the checkable source files under ``root`` and the set of all file paths."""
    texts: dict[str, str] = {}
    total = 0
    files = list_files(root, max_file_bytes=MAX_FILE_BYTES)
    for f in files:
        if f.binary or f.too_large or PurePosixPath(f.path).suffix.lower() not in CHECKABLE:
            continue
        if total + f.size > MAX_TOTAL_BYTES:
            continue
        try:
            texts[f.path] = decode_bytes((root / f.path).read_bytes()).text
        except (OSError, WorkspaceError):
            continue
        total += f.size
    return texts, frozenset(f.path for f in files)


def take_baseline(
    root: Path,
    sandbox: Sandbox,
    *,
    test_cmd: str | None = None,
    smoke_seconds: float | None = None,
    test_timeout: float = 600.0,
    extra_env: Mapping[str, str] | None = None,
) -> Baseline:
    """Record the tree before any edit: source texts, per-test outcomes, and (when
    ``smoke_seconds`` is given) how the entry point behaves.

    ``test_cmd`` defaults to ``detect_test_command(root)``; when neither finds a runner, no
    tests are run. ``extra_env`` is passed to the test run (``patchwright check`` uses it to
    put an exported copy of HEAD first on ``PYTHONPATH``).
    """
    from patchwright.verify.detect import detect_test_command

    started = time.monotonic()
    root = Path(root).resolve()
    texts, paths = snapshot_texts(root)
    cmd = test_cmd or detect_test_command(root)
    tests = (
        run_tests(root, sandbox, cmd, timeout=test_timeout, extra_env=extra_env) if cmd else None
    )
    smoke = None
    if smoke_seconds:
        smoke = run_smoke(root, sandbox, smoke_seconds, extra_env=extra_env)
    return Baseline(
        root=root,
        texts=texts,
        paths=paths,
        tests=tests,
        test_cmd=cmd,
        smoke=smoke,
        seconds=time.monotonic() - started,
    )
