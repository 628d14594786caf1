"""The repository's own tests for an instance (the fair mode): test files of the checkout at
the base commit that test the suspects' files — named after a file's module
(``tests/test_fields.py`` for ``src/pkg/fields.py``) or importing it — as the repository
ships them, never the instance's hidden tests. Their baseline is what every trial must keep.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from patchwright.agent.relevance import imported_files

Reader = Callable[[str], str | None]
TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")  # pytest's default discovery
MAX_FILES = 4
MAX_DESELECTED = 40
_PASSED = ("PASSED", "XFAIL")
_FAILED = ("FAILED", "ERROR")


def _module(path: str) -> str:
    """``pkg/fields.py`` → ``fields``; ``pkg/sub/__init__.py`` → ``sub``."""
    pure = PurePosixPath(path)
    return pure.parent.name if pure.stem == "__init__" else pure.stem


def _named_after(test: str, module: str) -> bool:
    stem = PurePosixPath(test).stem
    return stem in (f"test_{module}", f"{module}_test") or stem.startswith(f"test_{module}_")


def related_test_files(
    sources: Sequence[str], paths: Sequence[str], read: Reader, limit: int = MAX_FILES
) -> list[str]:
    """At most ``limit`` test files of ``paths`` that test ``sources`` (best first): for each
    source in order the test files named after its module, then those importing it."""
    tests = sorted(p for p in paths if TEST_FILE.search(p))
    sources = [s for s in dict.fromkeys(sources) if s.endswith(".py") and not TEST_FILE.search(s)]
    found: list[str] = []
    for source in sources:
        found += [t for t in tests if _named_after(t, _module(source)) and t not in found]
    if len(found) < limit:
        wanted = set(sources)
        for test in tests:
            text = read(test) if test not in found else None
            if text is not None and wanted & set(imported_files(text, paths)):
                found.append(test)
            if len(found) >= limit:
                break
    return found[:limit]


@dataclass(frozen=True)
class Baseline:
    """The repository's own tests before any change: the files, the command on them, and
    which of their tests passed and failed."""

    files: tuple[str, ...] = ()
    command: str = ""
    passing: tuple[str, ...] = ()
    failing: tuple[str, ...] = ()

    def agent_command(self) -> str | None:
        """The agent strategy's test command: the files with the tests that already failed
        before any change deselected (pytest), so that it can pass; None without files."""
        if not self.command:
            return None
        words = shlex.split(self.command)
        if not self.failing or not any(w in ("pytest", "py.test") for w in words[:4]):
            return self.command
        skip = [f"--deselect={t}" for t in self.failing[:MAX_DESELECTED]]
        return " ".join([self.command, *(shlex.quote(s) for s in skip)])


def split_status(
    status: Mapping[str, str], reproduction: str | None
) -> tuple[list[str], list[str], list[str]]:
    """The repository's passing and failing tests, and the reproduction's failing ones
    (its tests are those of the file ``reproduction``)."""
    passing, failing, reproducing = [], [], []
    for test, outcome in sorted(status.items()):
        if reproduction is not None and test.startswith(reproduction + "::"):
            if outcome == "FAILED":  # an ERROR is a test that could not run, not the issue
                reproducing.append(test)
        elif outcome in _PASSED:
            passing.append(test)
        elif outcome in _FAILED:
            failing.append(test)
    return passing, failing, reproducing
