"""The settings docs/settings.md says chat honours, each shown by what it does: the test
command in a task's criterion, ``/test`` and ``/write``; the test time limit reaching a task's
test runs; a task on a new branch; nothing committed with ``[run] commit = false`` or
``--no-git``; a bad ``--edit-format`` refused at each task; ``--record`` writing the replies.
Real git repositories, the scripted model, the user's config in a temporary
``XDG_CONFIG_HOME``, a front end that records what it is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.modes.chat.test_engine import FIX, TASK, Script, ScriptedUI, chat_for

from patchwright.events import Event

CHECK = (
    "from shop.pricing import apply_discount\n\n"
    "got = apply_discount(200.0, 25)\n"
    "assert got == 150.0, f'check.py: 25% off 200 gave {got}'\n"
    "print('check.py: the discount holds')\n"
)


@pytest.fixture
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config file (empty until a test writes it), no PATCHWRIGHT_* from outside."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("MODEL", "MAX_COST", "TEST_CMD", "GIT_RUN_HOOKS"):
        monkeypatch.delenv(f"PATCHWRIGHT_{name}", raising=False)
    path = tmp_path / "xdg" / "patchwright" / "config.toml"
    path.parent.mkdir(parents=True)
    return path


def head(repo: Path, shop: Any) -> str:
    return str(shop.git(repo, "rev-parse", "HEAD")).strip()


# -- verification ------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["flag", "config"])
def test_chat_s_tasks_test_and_write_use_the_users_test_command(
    shop_repo: Path, script: Script, shop: Any, user_config: Path, where: str
) -> None:
    (shop_repo / "check.py").write_text(CHECK)
    shop.git(shop_repo, "add", "check.py")
    shop.git(shop_repo, "commit", "-qm", "a check")
    cmd = "python3 check.py"
    options: dict[str, Any] = {"test_cmd": cmd} if where == "flag" else {}
    if where == "config":
        user_config.write_text(f'[run]\ntest_cmd = "{cmd}"\n')
    ui = ScriptedUI(answers=["n"], edits=[shop.BUGGY])
    chat = chat_for(shop_repo, script([FIX, "fix(pricing): x"]), ui, yes=True, **options)
    chat.handle(TASK)
    assert "done when: `python3 check.py` exits 0" in ui.text and "solved" in ui.text
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    chat.handle("/test")
    assert "$ python3 check.py" in ui.text and "check.py: the discount holds" in ui.text
    chat.handle("/write shop/pricing.py")  # your edit brings the bug back: check.py says so
    assert "your edit fails the gates; nothing was written" in ui.text
    assert "check.py: 25% off 200 gave 50.0" in ui.text.split("fails the gates")[-1]
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED


def test_chat_s_task_runs_its_tests_within_the_configured_test_timeout(
    shop_repo: Path, script: Script, shop: Any, user_config: Path
) -> None:
    (shop_repo / "slow.py").write_text("import time\n\ntime.sleep(60)\n")
    shop.git(shop_repo, "add", "slow.py")
    shop.git(shop_repo, "commit", "-qm", "a slow suite")
    user_config.write_text('[run]\ntest_cmd = "python3 slow.py"\ntest_timeout = 1\n')
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([FIX]), ui, yes=True, max_iter=1)
    seen: list[Event] = []
    chat.state.session.bus.subscribe(seen.append)
    chat.handle(TASK)
    [gate] = [
        e.payload() for e in seen if e.kind == "gate.result" and e.payload()["gate"] == "tests"
    ]
    assert gate["status"] == "could_not_run"
    assert "timed out after 1s" in gate["reason"]  # not [run]'s 180 s, nor slow.py's 60 s
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.BUGGY  # rolled back


# -- strategy and edits ------------------------------------------------------------------


def test_chat_refuses_a_bad_edit_format_at_each_task_and_changes_nothing(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([]), ui, yes=True, edit_format="patch")
    chat.handle(TASK)
    chat.handle("fix the discount again")
    said = "error: --edit-format patch: use one of auto, diff, whole, udiff"
    assert ui.text.count(said) == 2, ui.text
    assert shop.fingerprint(shop_repo) == before and chat.state.session.usage.calls == 0


# -- git ---------------------------------------------------------------------------------


def test_chat_s_task_works_on_a_new_branch_made_from_the_one_checked_out_when_the_config_says_branch(
    shop_repo: Path, script: Script, shop: Any, user_config: Path
) -> None:
    shop.git(shop_repo, "checkout", "-q", "-b", "feature")
    feature, main = head(shop_repo, shop), shop.git(shop_repo, "rev-parse", "main").strip()
    user_config.write_text("[run]\nbranch = true\n")
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script([FIX, "fix(pricing): x"]), ui, yes=True)
    chat.handle(TASK)
    branch = shop.git(shop_repo, "branch", "--show-current").strip()
    assert branch.startswith("patchwright/"), ui.text
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == "fix(pricing): x"
    assert shop.git(shop_repo, "rev-parse", "HEAD~1").strip() == feature
    assert shop.git(shop_repo, "rev-parse", "feature").strip() == feature
    assert shop.git(shop_repo, "rev-parse", "main").strip() == main


def test_chat_leaves_its_tasks_and_your_edits_uncommitted_when_the_config_says_commit_false(
    shop_repo: Path, script: Script, shop: Any, user_config: Path
) -> None:
    before = head(shop_repo, shop)
    user_config.write_text("[run]\ncommit = false\n")
    noted = shop.FIXED + "\n# checked by hand\n"
    ui = ScriptedUI(edits=[noted])
    chat = chat_for(shop_repo, script([FIX, "fix(pricing): x"]), ui, yes=True)
    chat.handle(TASK)
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert head(shop_repo, shop) == before
    chat.handle("/write shop/pricing.py")
    assert ui.text.splitlines()[-1] == "kept shop/pricing.py"  # not ", committed …"
    assert (shop_repo / "shop" / "pricing.py").read_text() == noted
    assert head(shop_repo, shop) == before
    assert shop.git(shop_repo, "status", "--porcelain", "--", "shop").strip() == "M shop/pricing.py"


def test_chat_without_git_changes_files_commits_nothing_and_undoes_from_its_journal(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    before = head(shop_repo, shop)
    noted = shop.FIXED + "\n# checked by hand\n"
    ui = ScriptedUI(edits=[noted])
    chat = chat_for(shop_repo, script([FIX, "fix(pricing): x"]), ui, yes=True, no_git=True)
    chat.handle(TASK)
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    chat.handle("/write shop/pricing.py")
    assert (shop_repo / "shop" / "pricing.py").read_text() == noted
    assert head(shop_repo, shop) == before
    chat.handle("/undo")
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    chat.handle("/undo")
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.BUGGY
    assert head(shop_repo, shop) == before


def test_chat_records_every_reply_of_its_model_for_replay(
    shop_repo: Path, script: Script, tmp_path: Path
) -> None:
    record = tmp_path / "rec" / "chat.jsonl"
    ui = ScriptedUI()
    chat = chat_for(shop_repo, script(["It applies a discount."]), ui, record=record)
    chat.handle("what does apply_discount do?")
    assert "It applies a discount." in ui.text
    replies = [json.loads(line) for line in record.read_text().splitlines()]
    assert [r["content"] for r in replies] == ["It applies a discount."]
