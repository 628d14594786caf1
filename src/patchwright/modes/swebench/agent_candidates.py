"""Candidates from the agent strategy: :func:`patchwright.agent.solve.solve` with a request
for the agent (planner → coder → reviewer with tools, in the instance's environment) that
hands its verified change back instead of keeping it — the checkout stays at the base commit,
so validation and TNR judge the change like any other candidate. The hidden tests are never
on disk while the agent works; its test command is the groundwork's (by default the
repository's own test files for the suspects, never the test patch's). Every setting of ``[run]`` and ``[agent]`` that applies to
the agent applies here (the coder's rounds, the planner, the send-backs, the edit format)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from patchwright.agent.prompts import render
from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.modes.swebench.propose import Prompt
from patchwright.modes.swebench.tnr import Candidate


@dataclass
class AgentUsage:
    """What the agent runs of an instance spent (each run starts the session's ledger
    anew, so the instance adds them up here)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: int = 0


def agent_candidates(
    session: Session, prompt: Prompt, *, k: int, first: int, test_cmd: str | None,
    test_timeout: float = 900.0, plan: bool | None = None, usage: AgentUsage | None = None,
) -> list[Candidate]:  # fmt: skip
    """``k`` agent runs, each a candidate (``plan``: None leaves ``[agent] plan``)."""
    suspects: Sequence[str] = [f"{s.path} ({s.name})" for s in prompt.suspects]
    task = render("swebench_agent_task", problem=prompt.problem, failures=prompt.failures,
                  suspects=suspects)  # fmt: skip
    overrides = Overrides(strategy="agent", plan=plan, test_cmd=test_cmd, test_timeout=test_timeout,
                          no_git=True, yes=True)  # fmt: skip
    request = build_request(task, session.settings, overrides, hand_back=True)
    out = []
    for i in range(k):
        result = solve(session, request)
        if usage is not None:
            usage.prompt_tokens += result.prompt_tokens
            usage.completion_tokens += result.completion_tokens
            usage.steps += result.steps
        changes = result.changes if result.outcome in ("solved", "unverified") else {}
        refused = [] if changes else [f"agent: {result.outcome}: {result.reason[:300]}"]
        out.append(Candidate(first + i, changes, source="agent", refused=refused))
    return out
