"""``patchwright review`` end to end: real git repositories, real gates and test runs, scripted
model replies (consumed in order: a proposal, its repairs, the commit message, the memory)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import PYPROJECT, make_repo
from typer.testing import CliRunner

from patchwright.cli import app

Script = Callable[[list[str]], Path]

PRICING = '''"""Prices and discounts."""


def apply_discount(price, percent):
    """Return the price after taking ``percent`` (0-100) off it."""
    return price * percent / 100
'''
CART = '''"""A shopping cart's total."""

from shop.pricing import apply_discount


def total(prices, percent):
    """The cart's total after the discount."""
    return sum(apply_discount(p, percent) for p in prices)
'''
TESTS = """from shop.pricing import apply_discount


def test_quarter_off():
    assert apply_discount(200.0, 25) == 150.0


def test_zero():
    assert apply_discount(80.0, 0) == 80.0


def test_half():
    assert apply_discount(10.0, 50) == 5.0
"""


def sr(path: str, search: str, replace: str, why: str) -> str:
    return (
        f"{why}\n\n{path}\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n"
        ">>>>>>> REPLACE\n```\n"
    )


BUG = "    return price * percent / 100"
FIX = sr("shop/pricing.py", BUG, "    return price * (1 - percent / 100)",
         "The discount is returned instead of the discounted price.")  # fmt: skip
SHOP_FILES = {"shop/__init__.py": '"""A tiny shop."""\n', "shop/pricing.py": PRICING,
              "shop/cart.py": CART, "tests/test_pricing.py": TESTS, "pyproject.toml": PYPROJECT,
              "README.md": "A tiny shop that prices carts.\n"}  # fmt: skip
COMMIT = "fix(pricing): subtract the discount from the price"
MEMORY = "- pricing: apply_discount now subtracts the discount"


@pytest.fixture
def shop_repo(tmp_path: Path, shop: Any) -> Path:
    """A shop whose discount is wrong (failing tests) and a cart that uses it."""
    return make_repo(tmp_path / "shop", SHOP_FILES)


def review(repo: Path, replies: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        ["review", "--repo", str(repo), "--model", f"scripted:{replies}", "--json",
         "--smoke-seconds", "0", *extra],
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, (result.output, result.exception)
    return result.exit_code, json.loads(lines[0])


def review_file(repo: Path, name: str) -> str:
    return (repo / ".patchwright" / "review" / name).read_text()


def events(repo: Path) -> list[dict[str, Any]]:
    run_dir = sorted((repo / ".patchwright" / "runs").iterdir())[-1]
    return [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]


def user_prompts(repo: Path) -> list[str]:
    """The user prompts of the review's last proposal that asked the model: a task whose
    record nests in the review's (``tasks/<run id>/``)."""
    run_dir = sorted((repo / ".patchwright" / "runs").iterdir())[-1]
    started = [e for e in events(repo) if e["kind"] == "run.start"]
    assert started and all(e["parent"] == run_dir.name for e in started)
    asked = [run_dir / "tasks" / e["run_id"] / "trajectory.json" for e in started]
    last = [path for path in asked if path.exists()][-1]
    messages = json.loads(last.read_text())["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


def test_a_bug_the_tests_catch_is_fixed_committed_and_recorded(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    code, out = review(shop_repo, script([FIX, COMMIT, MEMORY]), "--iterations", "1", "--yes")

    assert (code, out["outcome"]) == (0, "finished"), out
    [accepted] = out["accepted"]
    assert accepted["target"] == "shop/pricing.py" and accepted["kind"] == "bug"
    assert accepted["commit"] == shop.git(shop_repo, "rev-parse", "HEAD").strip()
    assert "tests/test_pricing.py::test_quarter_off (failed)" in accepted["fixed"]
    assert "(1 - percent / 100)" in (shop_repo / "shop/pricing.py").read_text()
    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == COMMIT
    history = review_file(shop_repo, "HISTORY.md")
    assert (
        accepted["commit"][:12] in history and "+    return price * (1 - percent / 100)" in history
    )
    assert "apply_discount now subtracts" in review_file(shop_repo, "MEMORY.md")
    assert "`shop/pricing.py`" in review_file(shop_repo, "ANALYSIS.md")
    symbols = json.loads(review_file(shop_repo, "SYMBOLS.json"))
    assert symbols["definitions"]["apply_discount"] == "shop/pricing.py"
    log = events(shop_repo)
    assert {"review.phase", "review.proposal", "review.outcome"} <= {e["kind"] for e in log}
    outcome = next(e for e in log if e["kind"] == "review.outcome")
    assert (outcome["proposal"], outcome["status"]) == ("bug", "accepted")
    target = next(e for e in log if e["kind"] == "review.target")
    assert any("failing test" in r for r in target["reasons"]), target
    assert "test_quarter_off" in user_prompts(shop_repo)[0]  # the model saw what fails
    assert not (shop_repo / ".patchwright/review/PEER_REVIEW.md").exists()
    assert shop.git(shop_repo, "status", "--porcelain").strip() == ""


def test_a_proposal_that_breaks_a_test_is_rolled_back_and_archived(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    breaks = sr("shop/pricing.py", BUG, "    return price - percent", "Subtract the percent.")
    still = sr("shop/pricing.py", "    return price - percent", "    return price - price * percent",
               "Scale the percent by the price.")  # fmt: skip
    before, head = shop.fingerprint(shop_repo), shop.git(shop_repo, "rev-parse", "HEAD")

    code, out = review(shop_repo, script([breaks, still, MEMORY]), "--iterations", "1",
                       "--yes", "--heal", "1")  # fmt: skip

    assert code == 0 and out["accepted"] == [], out
    [rejected] = out["rejected"]
    assert rejected["target"] == "shop/pricing.py" and rejected["attempts"] == 2
    assert shop.fingerprint(shop_repo) == before  # test_half passed before: it must pass now
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head
    failed = review_file(shop_repo, "FAILED_PEER_REVIEW.md")
    assert "test_half" in failed and "Scale the percent by the price." in failed
    repair = user_prompts(shop_repo)[1]  # the repair knows the goal, the proposal and the error
    # a one-function proposal's goal: the function and the test that convicts it
    assert "Fix the function `apply_discount` in shop/pricing.py so that" in repair
    assert "Subtract the percent." in repair
    assert "test_half" in repair


def test_a_change_that_fixes_none_of_the_findings_is_sent_back_with_them(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    idle = sr("shop/pricing.py", BUG, f"    # percent is 0-100\n{BUG}", "Document the unit.")

    code, out = review(shop_repo, script([idle, FIX, COMMIT, MEMORY]), "--iterations", "1",
                       "--yes", "--heal", "1")  # fmt: skip

    assert code == 0 and out["accepted"][0]["attempts"] == 2, out
    repair = user_prompts(shop_repo)[1]
    assert "fixed none of the problems found in shop/pricing.py" in repair
    assert "test_quarter_off" in repair


def test_nothing_to_fix_said_of_a_file_whose_tests_fail_is_answered_with_them_once(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    code, out = review(shop_repo, script(["NO_ISSUES", FIX, COMMIT, MEMORY]), "--iterations", "1",
                       "--yes")  # fmt: skip

    assert code == 0 and [a["target"] for a in out["accepted"]] == ["shop/pricing.py"], out
    press = user_prompts(shop_repo)[1]
    assert "nothing needs fixing, but the tools still report" in press
    assert "test_quarter_off" in press
    assert "(1 - percent / 100)" in (shop_repo / "shop/pricing.py").read_text()


def test_a_second_nothing_to_fix_ends_the_proposal_as_clean_and_says_what_stands(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    before = shop.fingerprint(shop_repo)

    code, out = review(shop_repo, script(["NO_ISSUES", "No issues.", MEMORY]), "--iterations",
                       "1", "--yes", "--target", "shop/pricing.py")  # fmt: skip

    assert code == 0 and out["accepted"] == [], out
    assert out["clean"] == ["shop/pricing.py"], out
    outcome = next(e for e in events(shop_repo) if e["kind"] == "review.outcome")
    assert outcome["status"] == "clean"
    assert "though the tools report problems in it" in outcome["reason"], outcome
    assert shop.fingerprint(shop_repo) == before


def test_a_file_whose_tests_still_fail_gets_a_second_look_in_a_later_iteration(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    replies = ["NO_ISSUES", "No issues.", MEMORY, FIX, COMMIT, MEMORY]

    code, out = review(shop_repo, script(replies), "--iterations", "2", "--yes", "--target",
                       "shop/pricing.py")  # fmt: skip

    assert (code, out["outcome"], out["iterations"]) == (0, "finished", 2), out
    assert out["clean"] == ["shop/pricing.py"]  # the first look: "nothing", twice
    assert [a["target"] for a in out["accepted"]] == ["shop/pricing.py"]
    assert "(1 - percent / 100)" in (shop_repo / "shop/pricing.py").read_text()


def test_a_changed_signature_queues_its_caller_and_the_cascade_fixes_it(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    resigned = sr(
        "shop/pricing.py",
        f"def apply_discount(price, percent):\n{PRICING.splitlines()[4]}\n{BUG}",
        "def apply_discount(price, percent, digits=2):\n"
        '    """Return the price after taking ``percent`` (0-100) off it, rounded."""\n'
        "    return round(price * (1 - percent / 100), digits)",
        "Subtract the discount and round to cents.",
    )
    caller = sr("shop/cart.py", "apply_discount(p, percent)", "apply_discount(p, percent, 2)",
                "Pass the rounding explicitly.")  # fmt: skip
    replies = script([resigned, COMMIT, MEMORY, caller, "refactor(cart): pass digits", MEMORY])

    code, out = review(shop_repo, replies, "--iterations", "2", "--yes")

    assert code == 0, out
    assert [a["target"] for a in out["accepted"]] == ["shop/pricing.py", "shop/cart.py"]
    assert [a["kind"] for a in out["accepted"]] == ["bug", "cascade"]
    assert "apply_discount(p, percent, 2)" in (shop_repo / "shop/cart.py").read_text()
    log = events(shop_repo)
    cascade = next(e for e in log if e["kind"] == "review.cascade")
    assert cascade["queued"] == ["shop/cart.py"]
    second = [e for e in log if e["kind"] == "review.target"][1]
    assert second["reasons"][0].startswith("cascade: shop/pricing.py: `apply_discount` changed")
    prompt = user_prompts(shop_repo)[0]
    assert "digits=2" in prompt and "shop/cart.py" in prompt  # the change, as context
    assert (
        shop.git(shop_repo, "log", "--format=%s", "-2").split("\n")[0]
        == "refactor(cart): pass digits"
    )


@pytest.mark.parametrize("on_timeout", ["skip", "apply"])
def test_an_unanswered_checkpoint_does_what_on_timeout_says(
    shop_repo: Path, script: Script, shop: Any, on_timeout: str
) -> None:
    head = shop.git(shop_repo, "rev-parse", "HEAD")
    replies = [FIX, MEMORY] if on_timeout == "skip" else [FIX, COMMIT, MEMORY]

    code, out = review(shop_repo, script(replies), "--iterations", "1",
                       "--checkpoint-timeout", "1", "--on-timeout", on_timeout)  # fmt: skip

    assert code == 0, out
    resolved = next(e for e in events(shop_repo) if e["kind"] == "review.checkpoint.resolved")
    assert (resolved["by"], resolved["decision"]) == ("timeout", on_timeout)
    if on_timeout == "skip":
        assert [s["target"] for s in out["skipped"]] == ["shop/pricing.py"]
        assert shop.git(shop_repo, "rev-parse", "HEAD") == head
        assert (shop_repo / "shop/pricing.py").read_text() == PRICING
    else:
        assert out["accepted"][0]["commit"] == shop.git(shop_repo, "rev-parse", "HEAD").strip()


GREET = '''"""Greetings."""


def greeting(name):
    """A friendly greeting for ``name``."""
    return "hello " + name
'''
MAIN = '''"""Greets the world."""

from greet import greeting

if __name__ == "__main__":
    print(greeting("world"))
'''


def test_a_runtime_crash_caught_by_the_smoke_run_is_healed_by_repair(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {"greet.py": GREET, "main.py": MAIN, "README.md": "Says hello.\n"}
    repo = make_repo(tmp_path / "hello", files)
    crashes = sr("greet.py", '    return "hello " + name', '    return "Hello, " + name.title',
                 "Capitalise the greeting.")  # fmt: skip
    healed = sr("greet.py", '    return "Hello, " + name.title', '    return "Hello, " + name.title()',
                "Call title().")  # fmt: skip

    code, out = review(repo, script([crashes, healed, "feat(greet): capitalise", MEMORY]),
                       "--iterations", "1", "--yes", "--target", "greet.py",
                       "--smoke-seconds", "5", "--heal", "1")  # fmt: skip

    assert code == 0, out
    [accepted] = out["accepted"]
    assert accepted["attempts"] == 2
    assert "name.title()" in (repo / "greet.py").read_text()
    smoke = [e for e in events(repo) if e["kind"] == "gate.result" and e["gate"] == "smoke"]
    assert [e["status"] for e in smoke] == ["failed", "passed"]
    repair = user_prompts(repo)[1]
    assert "TypeError" in repair and "Capitalise the greeting." in repair


def test_at_the_terminal_checkpoint_added_instructions_reach_the_regenerated_proposal(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    import pexpect

    again = FIX.replace("The discount is returned", "Kept the docstring; the discount is returned")
    replies = script([FIX, again, COMMIT, MEMORY])
    argv = ["-m", "patchwright.cli", "review", "--repo", str(shop_repo), "--model",
            f"scripted:{replies}", "--iterations", "1", "--smoke-seconds", "0"]  # fmt: skip
    child = pexpect.spawn(sys.executable, argv, encoding="utf-8", timeout=120,
                          env={**os.environ, "NO_COLOR": "1"}, dimensions=(50, 160))  # fmt: skip
    child.expect(r"\[a\]pply / \[e\]dit / a\[u\]gment")
    child.sendline("u")
    child.expect("Instructions to add")
    child.sendline("keep the docstring")
    child.expect("Kept the docstring")  # the regenerated proposal, shown for approval
    child.expect(r"\[a\]pply")
    child.sendline("a")
    child.expect(pexpect.EOF)

    assert shop.git(shop_repo, "log", "-1", "--format=%s").strip() == COMMIT
    assert "- keep the docstring" in user_prompts(shop_repo)[-1]


def test_sigterm_at_the_checkpoint_stops_with_the_repository_as_it_was(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    import signal
    import subprocess
    import time

    before, head = shop.fingerprint(shop_repo), shop.git(shop_repo, "rev-parse", "HEAD")
    argv = [sys.executable, "-m", "patchwright.cli", "review", "--repo", str(shop_repo),
            "--model", f"scripted:{script([FIX, MEMORY])}", "--json", "--smoke-seconds", "0",
            "--checkpoint-timeout", "120"]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    pending = shop_repo / ".patchwright/review/PEER_REVIEW.md"
    deadline = time.monotonic() + 90
    while not pending.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert pending.exists(), "the proposal never reached the checkpoint"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)

    assert proc.returncode == 3
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["outcome"] == "interrupted" and "SIGTERM" in summary["reason"]
    assert shop.fingerprint(shop_repo) == before
    assert shop.git(shop_repo, "rev-parse", "HEAD") == head
    assert not pending.exists()
    assert "stopped by signal SIGTERM" in review_file(shop_repo, "MEMORY.md")


def test_a_signature_change_that_breaks_an_untouched_typed_caller_is_rejected(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    geo = '"""Geometry."""\n\n\ndef area(w: int, h: int) -> int:\n    return w * h\n'
    report = (
        '"""Reports."""\n\nfrom geo import area\n\n\ndef line(w: int, h: int) -> str:\n'
        '    return f"area {area(w, h)}"\n'
    )
    files = {"geo.py": geo, "report.py": report, "README.md": "Shapes.\n",
             "pyproject.toml": '[project]\nname = "shapes"\nversion = "0"\n\n[tool.mypy]\n'}  # fmt: skip
    repo = make_repo(tmp_path / "shapes", files)
    resign = sr("geo.py", "def area(w: int, h: int) -> int:",
                "def area(w: int, h: int, scale: int) -> int:", "Let callers scale.")  # fmt: skip

    code, out = review(repo, script([resign, MEMORY]), "--iterations", "1", "--yes",
                       "--target", "geo.py", "--focus", "bugs", "--heal", "0")  # fmt: skip

    assert code == 0 and out["accepted"] == [], out
    [rejected] = out["rejected"]
    assert "report.py" in rejected["errors"] and "scale" in rejected["errors"], rejected
    assert (repo / "geo.py").read_text() == geo


def test_where_nothing_is_wrong_one_small_feature_is_proposed(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    files = {"greet.py": GREET, "main.py": MAIN, "README.md": "Says hello.\n"}
    repo = make_repo(tmp_path / "hello", files)
    feature = sr("greet.py", '    return "hello " + name',
                 '    return "hello " + (name.strip() or "stranger")',
                 "Greet a blank name as a stranger instead of printing an empty greeting.")  # fmt: skip

    code, out = review(repo, script(["NO_ISSUES", feature, "feat(greet): greet strangers", MEMORY]),
                       "--iterations", "1", "--yes", "--target", "greet.py")  # fmt: skip

    assert code == 0, out
    [accepted] = out["accepted"]
    assert (accepted["kind"], accepted["target"]) == ("feature", "greet.py")
    assert "stranger" in (repo / "greet.py").read_text()
    assert "· feature ·" in review_file(repo, "HISTORY.md")
    assert not (repo / ".patchwright/review/FEATURE.md").exists()


FIXED_FUNCTION = '''def apply_discount(price, percent):
    """Return the price after taking ``percent`` (0-100) off it."""
    return price * (1 - percent / 100)
'''


def test_asked_for_the_one_function_a_failing_test_convicts_the_corrected_function_lands(
    shop_repo: Path, script: Script, shop: Any
) -> None:
    explained = "The last line returns the discount, not the price after it."
    function = f"{explained}\n\n```python\n{FIXED_FUNCTION}```\n"
    replies = script([explained, function, COMMIT, MEMORY])

    code, out = review(shop_repo, replies, "--iterations", "1", "--yes",
                       "--edit-format-for", "tests=function")  # fmt: skip

    assert (code, out["outcome"]) == (0, "finished"), out
    [accepted] = out["accepted"]
    assert accepted["edit_format"] == "function"
    assert (shop_repo / "shop/pricing.py").read_text() == PRICING.replace(
        "price * percent / 100", "price * (1 - percent / 100)"
    )  # the function replaced in place, the module docstring kept
    first, follow_up = user_prompts(shop_repo)[:2]
    assert "The bug is in the function `apply_discount` of shop/pricing.py" in first
    assert "def test_quarter_off():\n    assert apply_discount(200.0, 25) == 150.0" in first
    assert follow_up.startswith("Now write the corrected function `apply_discount`")


def test_agent_settings_a_review_does_not_use_are_named_in_its_summary(
    tmp_path: Path, script: Script
) -> None:
    config = '[agent]\nstrategy = "agent"\nmax_rejections = 1\n\n[run]\nmax_iter = 6\n'
    repo = make_repo(tmp_path / "shop", {**SHOP_FILES, ".patchwright/config.toml": config})
    code, out = review(repo, script([FIX, COMMIT, MEMORY]), "--iterations", "1", "--yes")

    assert (code, [a["target"] for a in out["accepted"]]) == (0, ["shop/pricing.py"]), out
    assert out["notes"][:2] == [
        '[agent] strategy = "agent", [agent] max_rejections = 1 not used: a review makes each '
        "change through its own pipeline (propose, check, repair); they apply to run and chat",
        "[run] max_iter = 6 not used: a review tries each proposal 1 + --heal times",
    ]
