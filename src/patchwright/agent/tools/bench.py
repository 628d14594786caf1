"""The workbench: what the agent's tools act on — the repository, its index, the change in
progress (held in a ``WorkingCopy`` and mirrored to disk in one journaled transaction), the
sandbox, the gates, and the human who approves risky commands."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from patchwright.agent.checker import Check
from patchwright.agent.working_copy import WorkingCopy
from patchwright.sandbox import Sandbox

if TYPE_CHECKING:
    from patchwright.index import RepoIndex

CommandApprover = Callable[[str, str], bool]  # (command, why it needs approval) -> run it?


def refuse_commands(command: str, why: str) -> bool:
    """The approver when nobody can be asked: commands that need approval do not run."""
    return False


@dataclass
class Workbench:
    root: Path
    working: WorkingCopy
    sandbox: Sandbox
    check: Callable[[Sequence[str]], Check]  # gates + criterion on the files changed
    sync: Callable[[], None] = lambda: None  # mirror the change to disk (set by the solver)
    # the formatter's layout for changed files the lint gate checks it in (GateChecker.formatted)
    formatted: Callable[[Mapping[str, str | None]], dict[str, str]] = lambda texts: {}
    index: Callable[[], RepoIndex | None] = lambda: None
    approve_command: CommandApprover = refuse_commands
    test_cmd: str | None = None
    command_timeout: float = 300.0  # the run tool's default
    test_timeout: float = 180.0  # run_tests on chosen test ids, as the gates' test runs
    edit_format: str = "diff"  # what the edit tool asks for: diff | whole | udiff

    def files(self) -> list[str]:
        """The repository's files as the change leaves them (created ones in, deleted out)."""
        known = set(self.working.repo_files) | set(self.working.current)
        return sorted(p for p in known if self.working.text(p) is not None)
