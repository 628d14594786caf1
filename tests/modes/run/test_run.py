"""``patchwright run`` end to end on real git repos, with scripted model replies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from patchwright.cli import app

TASK = "tests/test_pricing.py fails: apply_discount returns the discount, not the price. Fix it."


def sr(search: str, replace: str, path: str = "shop/pricing.py") -> str:
    return f"Fix:\n\n{path}\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"


def whole(text: str, path: str = "shop/pricing.py") -> str:
    return f"{path}\n```python\n{text}```\n"


def run(repo: Path, replies: Path, *extra: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--repo",
            str(repo),
            "--task",
            TASK,
            "--model",
            f"scripted:{replies}",
            "--yes",
            "--json",
            *extra,
        ],
    )
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


def test_failing_test_is_fixed_and_committed(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script(
        [
            sr("    return price * percent / 100", "    return price * (1 - percent / 100)"),
            "fix(pricing): return the discounted price",
        ]
    )
    code, out = run(shop_repo, replies)
    assert code == 0, out
    assert out["outcome"] == "solved" and out["iterations"] == 1
    assert out["files_changed"] == ["shop/pricing.py"]
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert (
        shop.git(shop_repo, "log", "-1", "--format=%s").strip()
        == "fix(pricing): return the discounted price"
    )
    assert out["commit"] == shop.git(shop_repo, "rev-parse", "HEAD").strip()
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""


def test_syntax_error_is_repaired_on_the_second_iteration(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    broken = shop.FIXED.replace(
        "return price * (1 - percent / 100)", "return price * (1 - percent / 100"
    )
    replies = script([whole(broken), whole(shop.FIXED), "fix: correct discount"])
    code, out = run(shop_repo, replies, "--edit-format", "whole")
    assert code == 0, out
    assert out["iterations"] == 2
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    messages = json.loads(trajectory.read_text())["messages"]
    repair = [m["content"] for m in messages if m["role"] == "user"][1]
    assert TASK in repair  # the repair prompt carries the original goal
    assert "pricing.py" in repair


def test_unmatched_search_gets_did_you_mean_and_is_corrected(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script(
        [
            sr("    return price * rate / 100", "    return price * (1 - rate / 100)"),
            sr("    return price * percent / 100", "    return price * (1 - percent / 100)"),
            "fix: discount",
        ]
    )
    code, out = run(shop_repo, replies)
    assert code == 0, out
    assert out["iterations"] == 1  # the correction did not burn an iteration
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    messages = json.loads(trajectory.read_text())["messages"]
    feedback = [m["content"] for m in messages if m["role"] == "user"][1]
    assert "return price * percent / 100" in feedback  # the closest actual lines are shown


def test_nothing_works_restores_the_repo_byte_for_byte(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)
    head = shop.git(shop_repo, "rev-parse", "HEAD")
    wrong = shop.BUGGY.replace("return price * percent / 100", "return price - percent")
    replies = script([whole(wrong), whole(wrong + "\n"), whole(wrong.replace("-", "+"))])
    code, out = run(shop_repo, replies, "--edit-format", "whole", "--max-iter", "2")
    assert code == 1
    assert out["outcome"] == "failed"
    assert shop.fingerprint(shop_repo) == before
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head


def test_usage_errors_exit_2(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["run", "--repo", str(shop_repo)]).exit_code == 2
    missing = runner.invoke(
        app,
        [
            "run",
            "--repo",
            str(shop_repo / "nope"),
            "--task",
            "x",
            "--yes",
            "--model",
            f"scripted:{script(['x'])}",
        ],
    )
    assert missing.exit_code == 2
    bad_model = runner.invoke(
        app,
        ["run", "--repo", str(shop_repo), "--task", "x", "--yes", "--model", "nosuchprovider:abc"],
    )
    assert bad_model.exit_code == 2


def test_without_a_terminal_and_without_yes_it_refuses_to_start(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    result = CliRunner().invoke(
        app,
        ["run", "--repo", str(shop_repo), "--task", TASK, "--model", f"scripted:{script(['x'])}"],
    )
    assert result.exit_code == 2
    assert "--yes" in result.output


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_mid_run_restores_and_exits_3(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any, stop: signal.Signals
) -> None:
    slow_test = shop_repo / "tests" / "test_slow.py"
    slow_test.write_text("import time\n\n\ndef test_slow() -> None:\n    time.sleep(8)\n")
    shop.git(shop_repo, "add", "-A")
    shop.git(shop_repo, "commit", "-q", "-m", "slow test")
    before = shop.fingerprint(shop_repo)
    replies = script(
        [sr("    return price * percent / 100", "    return price * (1 - percent / 100)"), "fix: x"]
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "patchwright",
            "run",
            "--repo",
            str(shop_repo),
            "--task",
            TASK,
            "--model",
            f"scripted:{replies}",
            "--yes",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
        # CI may run us as a background job with SIGINT ignored; a child inheriting SIG_IGN
        # gets no KeyboardInterrupt at all, so give it the disposition a terminal would.
        preexec_fn=_default_sigint,
    )
    deadline = time.monotonic() + 60
    written = False
    while time.monotonic() < deadline and not written:
        time.sleep(0.2)
        for events in (shop_repo / ".patchwright" / "runs").glob("*/events.jsonl"):
            written = '"txn.write"' in events.read_text()
    assert written, "the change was never written"
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED  # on disk while gating
    proc.send_signal(stop)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 3, stderr[-2000:]
    assert json.loads(stdout.strip().splitlines()[-1])["outcome"] == "interrupted"
    assert shop.fingerprint(shop_repo) == before
    summaries = list((shop_repo / ".patchwright" / "runs").glob("*/summary.json"))
    reason = json.loads(summaries[0].read_text())["reason"]
    assert reason.endswith("repository restored")
    assert ("SIGTERM" in reason) == (stop == signal.SIGTERM)


def test_log_shows_the_last_run(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script(
        [sr("    return price * percent / 100", "    return price * (1 - percent / 100)"), "fix: d"]
    )
    _code, out = run(shop_repo, replies)
    result = CliRunner().invoke(app, ["log", "--repo", str(shop_repo), "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["run_id"] == out["run_id"]
    assert summary["outcome"] == "solved"
    events = Path(summary["run_dir"]) / "events.jsonl"
    kinds = [json.loads(line)["kind"] for line in events.read_text().splitlines()]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    assert "gate.result" in kinds and "txn.commit" in kinds


def test_the_tests_the_task_names_are_read_only(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    weakened = (shop_repo / "tests" / "test_pricing.py").read_text().replace("150.0", "50.0")
    first = whole(weakened, "tests/test_pricing.py") + whole(shop.FIXED)  # stopped at the tests
    replies = script([first, whole(shop.FIXED), "fix: d"])
    code, out = run(shop_repo, replies, "--edit-format", "whole")
    assert code == 0, out
    assert out["files_changed"] == ["shop/pricing.py"] and out["calls"] == 3
    assert "150.0" in (shop_repo / "tests" / "test_pricing.py").read_text()


def test_no_git_works_in_a_plain_directory(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    import shutil

    shutil.rmtree(shop_repo / ".git")
    replies = script(
        [sr("    return price * percent / 100", "    return price * (1 - percent / 100)")]
    )
    code, out = run(shop_repo, replies, "--no-git")
    assert code == 0, out
    assert out["commit"] is None and out["files_changed"] == ["shop/pricing.py"]
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED
    assert not (shop_repo / ".git").exists()


def test_branch_commits_on_a_working_branch(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script(
        [sr("    return price * percent / 100", "    return price * (1 - percent / 100)"), "fix: d"]
    )
    code, out = run(shop_repo, replies, "--branch")
    assert code == 0, out
    branch = shop.git(shop_repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    assert branch.startswith("patchwright/tests-test-pricing-py-fails")
    assert shop.git(shop_repo, "rev-parse", "main").strip() != out["commit"]


def test_a_runaway_reply_is_stopped_dropped_from_the_history_and_explained(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    runaway = "shop/pricing.py\n```python\n" + "assert apply_discount(1, 1) == 1\n" * 900
    good = sr("    return price * percent / 100", "    return price * (1 - percent / 100)")
    code, out = run(shop_repo, script([runaway, good, "fix: d"]))
    assert code == 0, out
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    messages = json.loads(trajectory.read_text())["messages"]
    assert [m["role"] for m in messages[:3]] == ["system", "user", "assistant"]
    assert "apply_discount(1, 1)" not in messages[2]["content"]  # the good reply, not the loop
    told = messages[1]["content"]  # the loop's feedback joined the request
    assert "began repeating `assert apply_discount(1, 1) == 1` over and over" in told
    assert "tests/test_pricing.py" in told  # named as read-only


def test_the_tests_to_pass_are_shown_for_reference_before_the_files_to_edit(
    shop_repo: Path, script: Callable[[list[str]], Path]
) -> None:
    good = sr("    return price * percent / 100", "    return price * (1 - percent / 100)")
    code, out = run(shop_repo, script([good, "fix: d"]))
    assert code == 0, out
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    prompt = json.loads(trajectory.read_text())["messages"][1]["content"]
    reference = prompt.index("For reference only")
    assert reference < prompt.index("tests/test_pricing.py\n```")
    assert prompt.index("tests/test_pricing.py\n```") < prompt.index("The files you may edit")
    assert prompt.index("The files you may edit") < prompt.index("shop/pricing.py\n```")


def test_a_solution_no_test_proved_says_so(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    shop.git(shop_repo, "rm", "-q", "-r", "tests", "pyproject.toml")
    shop.git(shop_repo, "commit", "-q", "-m", "no tests")
    replies = script(
        [sr("    return price * percent / 100", "    return price * (1 - percent / 100)"), "fix: d"]
    )
    code, out = run(shop_repo, replies)
    assert (code, out["outcome"]) == (4, "unverified"), out
    summary_file = next((shop_repo / ".patchwright" / "runs").iterdir()) / "summary.json"
    summary = json.loads(summary_file.read_text())
    assert summary["outcome"] == "unverified"
    assert summary["gates"]["tests"] == "skipped"
    assert summary["gates"]["syntax"] == "passed"
    assert any(note.startswith("unverified: no check") for note in summary["notes"])
    result = CliRunner().invoke(app, ["log", "--repo", str(shop_repo)])
    assert "unverified" in result.output and "no check could prove" in result.output


def test_an_edit_naming_no_file_is_placed_in_the_shown_file_it_matches(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    pathless = sr("    return price * percent / 100", "    return price * (1 - percent / 100)")
    pathless = pathless.replace("shop/pricing.py\n", "")
    code, out = run(shop_repo, script([pathless, "fix: d"]))
    assert code == 0, out
    assert out["files_changed"] == ["shop/pricing.py"]
    assert (shop_repo / "shop" / "pricing.py").read_text() == shop.FIXED


def test_a_test_file_the_task_names_is_read_only_even_when_the_suite_hangs(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    hanging = shop.BUGGY.replace("return price * percent / 100", "while True:\n        pass")
    (shop_repo / "shop" / "pricing.py").write_text(hanging)
    shop.git(shop_repo, "commit", "-qam", "hangs")
    weakened = "def test_nothing() -> None:\n    assert True\n"
    replies = script([whole(weakened, "tests/test_pricing.py"), whole(shop.FIXED), "fix: d"])
    code, out = run(shop_repo, replies, "--edit-format", "whole", "--test-timeout", "12")
    assert code == 0, out
    assert out["files_changed"] == ["shop/pricing.py"]
    assert "150.0" in (shop_repo / "tests" / "test_pricing.py").read_text()


def test_a_reply_that_changes_nothing_is_answered_without_spending_an_iteration(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    replies = script([whole(shop.BUGGY), whole(shop.FIXED), "fix: d"])
    code, out = run(shop_repo, replies, "--edit-format", "whole", "--max-iter", "1")
    assert code == 0, out
    assert out["iterations"] == 1
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    messages = json.loads(trajectory.read_text())["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant"]
    assert "left every file exactly as it was" in messages[1]["content"]


def test_a_reply_repeating_a_rejected_change_is_answered_in_a_new_conversation(
    shop_repo: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    wrong = shop.BUGGY.replace("price * percent / 100", "price - percent")
    replies = script([whole(wrong), whole(wrong), whole(shop.FIXED), "fix: d"])
    code, out = run(shop_repo, replies, "--edit-format", "whole", "--max-iter", "2")
    assert code == 0, out
    assert out["iterations"] == 2
    trajectory = next((shop_repo / ".patchwright" / "runs").iterdir()) / "trajectory.json"
    messages = json.loads(trajectory.read_text())["messages"]
    assert any("An earlier answer to this was tried and failed" in m["content"] for m in messages)
    assert [m["role"] for m in messages].count("system") == 2  # the new conversation
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    assert replies.count(whole(wrong)) == 1  # the echo is not kept to be copied
