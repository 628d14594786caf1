"""``patchwright run``'s flags reach the task as typed values, and a combination a strategy
cannot honour is a usage error (exit 2) that names it, before anything runs."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.agent.request import (
    Approval,
    GitChoices,
    Limits,
    Overrides,
    RunError,
    build_request,
)
from patchwright.cli import app
from patchwright.config import Settings

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


def run(repo: Path, replies: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, ["run", "--repo", str(repo), "--task", TASK, "--model",
                                      f"scripted:{replies}", "--yes", "--json", *extra])  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--candidates", "3", "--strategy", "agent"],
         "--candidates 3 samples several replies per iteration, which only the pipeline"),
        (["--edit-format", "patch"], "--edit-format patch: use one of auto, diff, whole, udiff"),
        (["--strategy", "fast"], "--strategy fast: use one of auto, pipeline, agent"),
        (["--test-timeout", "0"], "--test-timeout 0: give a positive number"),
        (["--no-plan"], "--no-plan skips the agent strategy's planner; the pipeline (auto chose"),
        (["--no-plan", "--strategy", "pipeline"], "the pipeline (--strategy pipeline) has none"),
    ],
)  # fmt: skip
def test_a_combination_no_strategy_honours_is_a_usage_error(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, flags: list[str],
    message: str,
) -> None:  # fmt: skip
    before = shop.fingerprint(shop_repo)
    code, out = run(shop_repo, script(["x"]), *flags)
    assert (code, out["outcome"]) == (2, "error")
    assert message in out["error"]
    assert shop.fingerprint(shop_repo) == before


def test_candidates_must_be_a_number_or_auto(
    shop_repo: Path, script: Callable[[list[str]], Path]
) -> None:
    result = CliRunner().invoke(app, ["run", "--repo", str(shop_repo), "--task", TASK, "--json",
                                      "--candidates", "many"])  # fmt: skip
    assert result.exit_code == 2
    assert "--candidates many: give a positive number or auto" in result.output


def test_every_flag_of_run_reaches_the_task_typed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``run``'s options become one typed ``Overrides`` (no ``**flags`` read back by name),
    and the request built from it carries each of them."""
    seen: dict[str, Any] = {}

    def execute(task: str, **given: Any) -> int:
        seen.update(given, task=task)
        return 0

    monkeypatch.setattr("patchwright.modes.run.cli.execute", execute)
    (tmp_path / "task.md").write_text("fix the discount\n")
    result = CliRunner().invoke(app, [
        "run", "--task-file", str(tmp_path / "task.md"), "--repo", str(tmp_path),
        "--model", "scripted:x.jsonl", "--record", str(tmp_path / "r.jsonl"),
        "--test-timeout", "9", "--test-cmd", "pytest -x", "--done-when", "a", "--done-when", "b",
        "--max-iter", "3", "--candidates", "2", "--strategy", "pipeline", "--no-plan",
        "--edit-format", "udiff", "--include", "x.py", "--branch",
        "--yes", "--approve-timeout", "5", "--push", "--pr", "--json", "--quiet",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (seen["task"], seen["model"], seen["record"]) == (
        "fix the discount",
        "scripted:x.jsonl",
        tmp_path / "r.jsonl",
    )
    assert (seen["as_json"], seen["quiet"], seen["repo"]) == (True, True, tmp_path)
    overrides = seen["overrides"]
    assert isinstance(overrides, Overrides)
    request = build_request(seen["task"], Settings(), overrides)
    assert request.limits == Limits(max_iter=3, candidates=2, plan=False, max_rejections=2,
                                    test_timeout=9.0)  # fmt: skip
    assert (request.test_cmd, request.done_when, request.include) == ("pytest -x", ("a", "b"),
                                                                      ("x.py",))  # fmt: skip
    assert (request.strategy, request.edit_format) == ("pipeline", "udiff")
    assert request.git == GitChoices(use_git=True, branch=True, commit=True, push=True, pr=True)
    assert request.approval == Approval(yes=True, timeout=5.0)


@pytest.mark.parametrize(
    ("overrides", "config", "said"),
    [
        (Overrides(no_git=True, commit=False), {}, None),
        (Overrides(no_git=True, branch=True), {}, "--branch need git: drop --no-git"),
        (Overrides(no_git=True, push=True, pr=True), {}, "--push and --pr need git"),
        (
            Overrides(push=True, commit=False),
            {},
            "--push need a commit, and --no-commit makes none",
        ),
        (Overrides(pr=True), {"commit": False}, "--pr need a commit, and [run] commit = false"),
    ],
)
def test_git_flags_that_contradict_each_other_are_refused_not_dropped(
    overrides: Overrides, config: dict[str, Any], said: str | None
) -> None:
    # before: --push --pr --no-commit ended solved, exit 0, nothing pushed and nothing said
    settings = Settings.model_validate({"run": config})
    if said is None:
        git = build_request("t", settings, overrides).git
        assert (git.use_git, git.commit) == (False, False)
        return
    with pytest.raises(RunError, match=re.escape(said)):
        build_request("t", settings, overrides)


def test_approve_timeout_applies_a_verified_change_without_yes(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script([FIX, "fix(pricing): discount"])
    result = CliRunner().invoke(app, ["run", "--repo", str(shop_repo), "--task", TASK, "--model",
                                      f"scripted:{replies}", "--json", "--approve-timeout", "1"])  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert (result.exit_code, out["outcome"]) == (0, "solved")
    assert out["commit"] and shop.git(shop_repo, "status", "--porcelain").strip() == ""


def test_no_commit_and_the_commit_setting_leave_the_change_uncommitted(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    head = shop.git(shop_repo, "rev-parse", "HEAD")
    code, out = run(shop_repo, script([FIX]), "--no-commit")
    assert (code, out["outcome"], out["commit"]) == (0, "solved", None)
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head
    assert "(1 - percent / 100)" in (shop_repo / "shop" / "pricing.py").read_text()
    shop.git(shop_repo, "checkout", "--", ".")
    config = shop_repo / ".patchwright" / "config.toml"
    config.write_text("[run]\ncommit = false\n")  # a safe key: the repository may set it
    code, out = run(shop_repo, script([FIX]))
    assert (code, out["outcome"], out["commit"]) == (0, "solved", None)
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head


def test_push_and_pr_publish_the_commit_or_say_why_not(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no gh
    origin = tmp_path / "origin.git"
    shop.git(tmp_path, "init", "-q", "--bare", str(origin))
    shop.git(shop_repo, "remote", "add", "origin", str(origin))
    code, out = run(shop_repo, script([FIX, "fix(pricing): discount"]), "--push", "--pr")
    assert (code, out["outcome"]) == (0, "solved")
    summary = json.loads(
        (shop_repo / ".patchwright" / "runs" / out["run_id"] / "summary.json").read_text()
    )
    assert "pushed main to origin" in summary["notes"]
    assert any("no pull request opened" in n for n in summary["notes"])
    assert shop.git(origin, "rev-parse", "main").strip() == out["commit"]
