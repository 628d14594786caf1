"""The settings docs/settings.md says the agent strategy honours, each shown by what it does:
a test command in the gates and the coder's ``run_tests`` tool, a branch made, a change left
uncommitted, a push, a pull request asked for, a change approved on a timeout — through
``solve`` on real git repositories, with the scripted model's tool calls, no CLI."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.agent.test_solve import APPROVE, FIX, TASK, call, events_of, settings_for

from patchwright.agent.request import Approval, Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import SolveResult
from patchwright.events import EventBus
from patchwright.modes.terminal.approval import TerminalPerson

AGENT_FIX = [call("edit", edits=FIX), call("finish", summary="price minus the discount"), APPROVE]
MESSAGE = "fix(pricing): take the discount off the price"
CHECK = (
    "from shop.pricing import apply_discount\n\n"
    "got = apply_discount(200.0, 25)\n"
    "assert got == 150.0, f'check.py: 25% off 200 gave {got}'\n"
)


def agent(
    repo: Path, tmp_path: Path, replies: list[dict[str, Any]] | None = None,
    sections: dict[str, Any] | None = None, **overrides: Any,
) -> tuple[SolveResult, list[tuple[str, dict[str, Any]]]]:  # fmt: skip
    """The agent strategy (no planner) on ``repo``: its result and the events it sent."""
    settings = settings_for(tmp_path, replies or AGENT_FIX, tools=True,
                            **{"agent": {"plan": False}, **(sections or {})})  # fmt: skip
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(**{"yes": True, **overrides}))
    return solve(Session(settings, repo, bus=bus), request), seen


def head(repo: Path, shop: Any) -> str:
    return str(shop.git(repo, "log", "-1", "--format=%s")).strip()


def observations(seen: list[tuple[str, dict[str, Any]]], tool: str) -> list[str]:
    return [str(d["observation"]) for k, d in seen if k == "tool.call" and d["tool"] == tool]


# -- verification ------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["flag", "config"])
def test_the_agent_checks_the_change_with_the_users_test_command_in_the_gates_and_run_tests(
    shop_repo: Path, tmp_path: Path, shop: Any, where: str
) -> None:
    (shop_repo / "check.py").write_text(CHECK)
    shop.git(shop_repo, "add", "check.py")
    shop.git(shop_repo, "commit", "-qm", "a check")
    cmd = "python3 check.py"
    replies = [call("run_tests"), *AGENT_FIX[:2], call("run_tests"), AGENT_FIX[2]]
    given: dict[str, Any] = (
        {"test_cmd": cmd} if where == "flag" else {"sections": {"run": {"test_cmd": cmd}}}
    )
    result, seen = agent(shop_repo, tmp_path, replies, **given)
    assert (result.outcome, result.strategy) == ("solved", "agent"), result.reason
    [criterion] = [d for k, d in seen if k == "criterion.decided"]
    assert criterion["test_cmd"] == cmd and "`python3 check.py` exits 0" in criterion["description"]
    before, after = observations(seen, "run_tests")
    assert before.startswith("not done yet") and "check.py: 25% off 200 gave 50.0" in before
    assert after.startswith("all gates passed")
    assert head(shop_repo, shop) == MESSAGE


# -- git and landing ---------------------------------------------------------------------


@pytest.mark.parametrize("where", ["flag", "config"])
def test_the_agent_commits_on_a_new_branch_and_main_stays_as_it_was(
    shop_repo: Path, tmp_path: Path, shop: Any, where: str
) -> None:
    main = shop.git(shop_repo, "rev-parse", "main").strip()
    given: dict[str, Any] = (
        {"branch": True} if where == "flag" else {"sections": {"run": {"branch": True}}}
    )
    result, seen = agent(shop_repo, tmp_path, **given)
    assert (result.outcome, result.strategy) == ("solved", "agent")
    [branch] = [d["branch"] for k, d in seen if k == "git.branch"]
    assert branch.startswith("patchwright/")
    assert shop.git(shop_repo, "branch", "--show-current").strip() == branch
    assert shop.git(shop_repo, "rev-parse", "main").strip() == main
    assert head(shop_repo, shop) == MESSAGE and result.commit


@pytest.mark.parametrize("where", ["flag", "config"])
def test_the_agent_leaves_the_change_uncommitted_with_no_commit_or_commit_false(
    shop_repo: Path, tmp_path: Path, shop: Any, where: str
) -> None:
    before = shop.git(shop_repo, "rev-parse", "HEAD")
    given: dict[str, Any] = (
        {"commit": False} if where == "flag" else {"sections": {"run": {"commit": False}}}
    )
    result, _ = agent(shop_repo, tmp_path, **given)
    assert (result.outcome, result.strategy, result.commit) == ("solved", "agent", None)
    assert shop.git(shop_repo, "rev-parse", "HEAD") == before
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert shop.git(shop_repo, "status", "--porcelain").strip() == "M shop/pricing.py"


def bare_origin(repo: Path, tmp_path: Path, shop: Any) -> Path:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    shop.git(repo, "remote", "add", "origin", str(origin))
    return origin


def test_the_agent_pushes_its_commit_to_origin(shop_repo: Path, tmp_path: Path, shop: Any) -> None:
    origin = bare_origin(shop_repo, tmp_path, shop)
    result, _ = agent(shop_repo, tmp_path, push=True)
    assert (result.outcome, result.strategy) == ("solved", "agent")
    assert result.commit and "pushed main to origin" in result.notes
    assert shop.git(origin, "rev-parse", "main").strip() == result.commit


def test_the_agent_pushes_for_a_pull_request_and_says_why_none_was_opened(
    shop_repo: Path, tmp_path: Path, shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no gh
    origin = bare_origin(shop_repo, tmp_path, shop)
    result, _ = agent(shop_repo, tmp_path, pr=True)
    assert (result.outcome, result.strategy) == ("solved", "agent")
    assert "pushed main to origin" in result.notes
    assert any(n.startswith("no pull request opened") for n in result.notes), result.notes
    assert shop.git(origin, "rev-parse", "main").strip() == result.commit


# -- approval ----------------------------------------------------------------------------


def test_the_agent_s_change_is_applied_on_the_approve_timeout_and_an_ask_command_is_not_run(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    replies = [call("run", command="pip install requests"), *AGENT_FIX]
    settings = settings_for(tmp_path, replies, tools=True, agent={"plan": False})
    bus = EventBus()
    seen = events_of(bus)
    request = build_request(TASK, settings, Overrides(approve_timeout=1))
    assert request.approval == Approval(yes=False, timeout=1)
    out = io.StringIO()
    person = TerminalPerson(Console(file=out, width=200, color_system=None), request.approval)
    result = solve(Session(settings, shop_repo, bus=bus), request, person=person)  # no terminal
    assert (result.outcome, result.strategy) == ("solved", "agent")
    assert "no terminal: approving after the 1s timeout" in out.getvalue()
    assert head(shop_repo, shop) == MESSAGE
    [asked] = observations(seen, "run")
    assert asked.startswith("not run:") and "approval" in asked
