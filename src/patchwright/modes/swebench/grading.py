"""Reading a test log the way the official harness does, and grading it.

With the ``swebench`` package installed, its per-repository log parser
(``MAP_REPO_TO_PARSER``) reads the log; without it (or for a repository it does not know)
the pytest ``-rA`` summary is read with the rule of its ``parse_log_pytest``. Grading
follows the harness's rule: FAIL_TO_PASS and PASS_TO_PASS must all pass (``PASSED`` or
``XFAIL``); a test that is missing or ``FAILED``/``ERROR`` fails; a skipped test counts
neither way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from patchwright.envs.official import load

StatusMap = dict[str, str]
_STATUSES = ("FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL")
_GOOD = ("PASSED", "XFAIL")
_BAD = ("FAILED", "ERROR")


def _official_parser(repo: str) -> Callable[[str, Any], dict[str, str]] | None:
    parsers = load("harness.log_parsers.python")  # the other languages' pull in the harness
    table = getattr(parsers, "MAP_REPO_TO_PARSER_PY", None) if parsers is not None else None
    parser: Callable[[str, Any], dict[str, str]] | None = table.get(repo) if table else None
    return parser


def parse_pytest_summary(log: str) -> StatusMap:
    """``STATUS test-id`` lines of pytest's ``-rA`` summary (the harness's pytest rule)."""
    status: StatusMap = {}
    for line in log.splitlines():
        if not line.startswith(_STATUSES):
            continue
        if line.startswith("FAILED"):
            line = line.replace(" - ", " ")
        words = line.split()
        if len(words) > 1:
            status[words[1]] = words[0]
    return status


def parse_log(repo: str, log: str) -> tuple[StatusMap, str]:
    """Per-test statuses from a test log, and which parser read it."""
    parser = _official_parser(repo)
    if parser is not None:
        return dict(parser(log, None)), "swebench"
    return parse_pytest_summary(log), "pytest -rA"


HIDDEN = ("FAIL_TO_PASS", "PASS_TO_PASS")  # the instance's hidden tests (the harness's names)


@dataclass
class Grade:
    """The outcomes of one test run for two lists: tests that must now pass and tests that
    must still pass — the hidden FAIL_TO_PASS and PASS_TO_PASS (``names`` by default), or in
    the fair mode the agent's own reproduction tests and the repository's own tests."""

    f2p_passed: list[str] = field(default_factory=list)
    f2p_failed: list[str] = field(default_factory=list)
    p2p_passed: list[str] = field(default_factory=list)
    p2p_failed: list[str] = field(default_factory=list)
    names: tuple[str, str] = HIDDEN

    @property
    def resolved(self) -> bool:
        return not self.f2p_failed and not self.p2p_failed

    def reason(self) -> str:
        if self.resolved:
            return "resolved"
        must, still = self.names
        parts = []
        if self.f2p_failed:
            parts.append(f"{len(self.f2p_failed)} {must} still failing: "
                         + ", ".join(self.f2p_failed[:3]))  # fmt: skip
        if self.p2p_failed:
            parts.append(f"{len(self.p2p_failed)} {still} broken: "
                         + ", ".join(self.p2p_failed[:3]))  # fmt: skip
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        must, still = self.names
        return {
            "resolved": self.resolved,
            must: {"success": self.f2p_passed, "failure": self.f2p_failed},
            still: {"success": self.p2p_passed, "failure": self.p2p_failed},
        }


def grade(
    status: Mapping[str, str], f2p: Sequence[str], p2p: Sequence[str],
    names: tuple[str, str] = HIDDEN,
) -> Grade:  # fmt: skip
    """Grade statuses against two test lists (see the module docstring)."""
    result = Grade(names=names)
    for tests, passed, failed in ((f2p, result.f2p_passed, result.f2p_failed),
                                  (p2p, result.p2p_passed, result.p2p_failed)):  # fmt: skip
        for test in tests:
            outcome = status.get(test)
            if outcome in _GOOD:
                passed.append(test)
            elif outcome is None or outcome in _BAD:
                failed.append(test)
    return result
