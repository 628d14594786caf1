"""Where a kept change lands, as the request says: committed on the branch (a new one with
``branch``), pushed with ``push``; left on disk, with a note, when the user had uncommitted
work in that file or there is no git; never committed with ``commit`` off — on real
repositories, with the scripted model."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from patchwright.agent.request import Overrides, RunError, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.agent.solve_types import SolveResult
from patchwright.config import Settings
from patchwright.events import Event, EventBus, GitAbsent, GitBranch

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."
FIX = (
    "shop/pricing.py\n```python\n<<<<<<< SEARCH\n    return price * percent / 100\n=======\n"
    "    return price * (1 - percent / 100)\n>>>>>>> REPLACE\n```\n"
)


def run(repo: Path, tmp_path: Path, **overrides: Any) -> tuple[SolveResult, list[Event]]:
    script = tmp_path / "script.jsonl"
    lines = [{"content": FIX}, {"content": "fix(pricing): take the discount off"}]
    script.write_text("".join(json.dumps(x) + "\n" for x in lines))
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}"}})
    events: list[Event] = []
    bus = EventBus()
    bus.subscribe(events.append)
    request = build_request(TASK, settings, Overrides(yes=True, **overrides))
    return solve(Session(settings, repo, bus=bus), request), events


def head(repo: Path, shop: Any) -> str:
    return str(shop.git(repo, "log", "-1", "--format=%s")).strip()


def test_a_new_branch_takes_the_commit_and_main_stays_as_it_was(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    main = shop.git(shop_repo, "rev-parse", "main").strip()
    result, events = run(shop_repo, tmp_path, branch=True)
    [branch] = [e.branch for e in events if isinstance(e, GitBranch)]
    assert branch.startswith("patchwright/") and result.commit
    assert shop.git(shop_repo, "branch", "--show-current").strip() == branch
    assert shop.git(shop_repo, "rev-parse", "main").strip() == main
    assert head(shop_repo, shop) == "fix(pricing): take the discount off"


def test_the_users_uncommitted_work_in_the_file_is_not_committed_for_them(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    pricing = shop_repo / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n# my own note\n")
    result, _ = run(shop_repo, tmp_path)
    assert (result.outcome, result.commit) == ("solved", None)
    assert any("you had uncommitted changes in shop/pricing.py" in n for n in result.notes)
    assert "(1 - percent / 100)" in pricing.read_text() and "# my own note" in pricing.read_text()
    assert head(shop_repo, shop) == "initial"


def test_with_commit_off_the_change_is_on_disk_and_uncommitted(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    result, _ = run(shop_repo, tmp_path, commit=False)
    assert (result.outcome, result.commit, result.files_changed) == (
        "solved", None, ["shop/pricing.py"])  # fmt: skip
    assert head(shop_repo, shop) == "initial"
    assert "shop/pricing.py" in shop.git(shop_repo, "status", "--porcelain")


def test_push_sends_the_branch_to_origin(shop_repo: Path, tmp_path: Path, shop: Any) -> None:
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", str(origin)], check=True)
    shop.git(shop_repo, "remote", "add", "origin", str(origin))
    result, _ = run(shop_repo, tmp_path, push=True)
    assert result.commit and "pushed main to origin" in result.notes
    pushed = subprocess.run(["git", "log", "-1", "--format=%H", "main"], cwd=origin,
                            capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert pushed == result.commit


def test_a_push_that_fails_is_a_note_and_the_commit_stays(shop_repo: Path, tmp_path: Path) -> None:
    result, _ = run(shop_repo, tmp_path, push=True)  # no remote called origin
    assert result.outcome == "solved" and result.commit
    assert any(n.startswith("git push failed:") for n in result.notes)


def test_without_git_the_change_is_made_and_nothing_is_committed(
    shop_repo: Path, tmp_path: Path, shop: Any
) -> None:
    shutil.rmtree(shop_repo / ".git")
    result, events = run(shop_repo, tmp_path)
    assert any(isinstance(e, GitAbsent) for e in events)
    assert (result.outcome, result.commit) == ("solved", None)
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED


def test_a_detached_head_needs_a_branch(shop_repo: Path, tmp_path: Path, shop: Any) -> None:
    shop.git(shop_repo, "checkout", "-q", "--detach")
    with pytest.raises(RunError, match="HEAD is detached"):
        run(shop_repo, tmp_path)
    result, _ = run(shop_repo, tmp_path, branch=True)
    assert result.commit and shop.git(shop_repo, "branch", "--show-current").startswith(
        "patchwright/"
    )


def test_with_free_prompt_tokens_the_message_is_asked_after_the_request_that_made_the_change(
    shop_repo: Path, tmp_path: Path, shop: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "script.jsonl"
    lines = [{"content": FIX}, {"content": "fix(pricing): take the discount off"}]
    script.write_text("".join(json.dumps(x) + "\n" for x in lines))
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}"}})
    session = Session(settings, shop_repo, bus=EventBus())
    sent: list[list[dict[str, Any]]] = []
    complete = session.model.complete

    def spy(messages: Any, **kwargs: Any) -> Any:
        sent.append([dict(m) for m in messages])
        return complete(messages, **kwargs)

    monkeypatch.setattr(session.model, "complete", spy)
    solve(session, build_request(TASK, settings, Overrides(yes=True)))
    assert session.model.info.free_prompts  # scripted, like the embedded model: no price
    edit, commit = sent
    # the server's cache holds the edit request and its reply: only the question is new
    assert commit[:-1] == [*edit, {"role": "assistant", "content": FIX}]
    assert "commit message" in commit[-1]["content"] and commit[-1]["role"] == "user"
    assert head(shop_repo, shop) == "fix(pricing): take the discount off"
