"""The settings a review honours, set as a user sets them: ``--no-commit``, ``[run] branch``,
``--record`` and ``--quiet`` — each on a real repository, through the command line, with the
scripted model (docs/settings.md's review column cites these)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import make_repo
from tests.modes.review.test_review import COMMIT, FIX, MEMORY, SHOP_FILES, review
from typer.testing import CliRunner

from patchwright.cli import app

Script = Callable[[list[str]], Path]
FIXED = "return price * (1 - percent / 100)"


def test_with_no_commit_the_accepted_change_stays_on_disk_uncommitted(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "shop", SHOP_FILES)
    head = shop.git(repo, "rev-parse", "HEAD")
    code, out = review(repo, script([FIX, MEMORY, MEMORY]), "--iterations", "1", "--yes",
                       "--no-commit")  # fmt: skip

    assert code == 0, out
    [accepted] = out["accepted"]
    assert (accepted["target"], accepted["commit"]) == ("shop/pricing.py", None)
    assert shop.git(repo, "rev-parse", "HEAD") == head
    assert FIXED in (repo / "shop/pricing.py").read_text()
    assert shop.git(repo, "status", "--porcelain", "shop").split() == ["M", "shop/pricing.py"]


def test_with_branch_in_the_config_the_review_commits_on_a_new_branch(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    config = {".patchwright/config.toml": "[run]\nbranch = true\n"}
    repo = make_repo(tmp_path / "shop", {**SHOP_FILES, **config})
    main = shop.git(repo, "rev-parse", "main")
    code, out = review(repo, script([FIX, COMMIT, MEMORY]), "--iterations", "1", "--yes")

    assert code == 0, out
    branch = shop.git(repo, "branch", "--show-current").strip()
    assert branch.startswith("patchwright/review"), branch
    assert shop.git(repo, "rev-parse", "main") == main  # the branch it started from, untouched
    [accepted] = out["accepted"]
    assert accepted["commit"] == shop.git(repo, "rev-parse", "HEAD").strip()
    assert shop.git(repo, "log", "-1", "--format=%s").strip() == COMMIT


def test_record_writes_every_reply_of_the_review_for_replay(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "shop", SHOP_FILES)
    recorded = tmp_path / "recorded.jsonl"
    code, out = review(repo, script([FIX, COMMIT, MEMORY]), "--iterations", "1", "--yes",
                       "--record", str(recorded))  # fmt: skip

    assert (code, len(out["accepted"])) == (0, 1), out
    replies = [json.loads(line)["content"] for line in recorded.read_text().splitlines()]
    assert replies[:2] == [FIX, COMMIT]  # the proposal, then its commit message


def test_quiet_prints_one_line_the_outcome_the_counts_and_the_commit(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    repo = make_repo(tmp_path / "shop", SHOP_FILES)
    replies = script([FIX, COMMIT, MEMORY])
    result = CliRunner().invoke(
        app,
        ["review", "--repo", str(repo), "--model", f"scripted:{replies}", "--quiet",
         "--smoke-seconds", "0", "--iterations", "1", "--yes"],
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    commit = shop.git(repo, "rev-parse", "HEAD").strip()[:12]
    assert result.stdout.splitlines() == [
        f"finished: 1 accepted, 0 rejected, 0 skipped, 0 failed ({commit})"
    ]
