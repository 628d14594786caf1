"""Candidates from the agent strategy: ``run --strategy agent`` (planner → coder → reviewer
with tools, in the instance's environment) on the checkout, once per candidate. Each run's
kept change becomes a candidate and is taken back at once, so validation and TNR judge it
like any other; the hidden tests are never on disk while the agent works."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console

from patchwright.agent.prompts import render
from patchwright.agent.session import Session
from patchwright.modes.swebench.propose import Prompt
from patchwright.modes.swebench.tnr import Candidate
from patchwright.modes.task.options import RunOptions
from patchwright.modes.task.runner import run_task
from patchwright.workspace.undo import undo


def agent_candidates(
    session: Session, prompt: Prompt, *, k: int, first: int, test_cmd: str, max_iter: int = 2,
    test_timeout: float = 900.0, usage: list[int] | None = None,
) -> list[Candidate]:  # fmt: skip
    """``k`` agent runs, each a candidate (``usage`` collects prompt and completion tokens
    and agent steps: every run starts the session's ledger anew)."""
    suspects: Sequence[str] = [f"{s.path} ({s.name})" for s in prompt.suspects]
    task = render("swebench_agent_task", problem=prompt.problem, failures=prompt.failures,
                  suspects=suspects)  # fmt: skip
    out = []
    for i in range(k):
        options = RunOptions(repo=session.root, task=task, strategy="agent", plan=False,
                             yes=True, no_git=True, no_commit=True, test_cmd=test_cmd,
                             max_iter=max_iter, test_timeout=test_timeout)  # fmt: skip
        summary = run_task(options, console=Console(file=io.StringIO()), session=session)
        if usage is not None:
            usage[0] += summary.prompt_tokens
            usage[1] += summary.completion_tokens
            usage[2] += summary.steps
        changes: dict[str, bytes | None] = {}
        if summary.outcome in ("solved", "unverified") and summary.files_changed:
            for path in summary.files_changed:
                target = session.root / path
                changes[path] = target.read_bytes() if target.is_file() else None
            undo(session.root, 1)  # back to the base commit before the next candidate
        refused = [] if changes else [f"agent: {summary.outcome}: {summary.reason[:300]}"]
        out.append(Candidate(first + i, changes, source="agent", refused=refused))
    return out
