"""The pipeline on a small SWE-bench-shaped instance, with the scripted model — by default
(fair: the repository's own tests choose), and with ``--oracle-tests`` (the hidden tests)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from swebench_case import FIX, reply, script, where_for

from patchwright.agent.request import RunError
from patchwright.config import Settings
from patchwright.modes.swebench.instance import SolveOptions, solve_instance
from patchwright.modes.swebench.propose import Prompt, Reader, excerpt_format, messages_for


def applies(world: dict[str, Any], patch: str) -> bool:
    bare = world["mirrors"] / "example__calc.git"
    check = world["tmp"] / "check"
    subprocess.run(["git", "clone", "-q", str(bare), str(check)], check=True)
    proc = subprocess.run(["git", "apply", "--check", "-"], cwd=check, input=patch, text=True)
    return proc.returncode == 0


def events_of(out: Path, instance_id: str = "example__calc-1") -> list[dict[str, Any]]:
    return [json.loads(x) for x in (out / instance_id / "events.ndjson").read_text().splitlines()]


def test_by_default_the_repositorys_own_tests_choose_the_prediction(
    calc_world: dict[str, Any], settings: Settings
) -> None:
    model = script(calc_world["tmp"], [reply(*FIX)])
    out = calc_world["tmp"] / "out"
    result = solve_instance(
        calc_world["instance"],
        where_for(calc_world),
        SolveOptions(model=model, candidates=1, max_iter=1),
        settings,
        out,
    )
    assert result.outcome == "unverified", result.reason  # nothing tested the issue itself
    assert "no test of the issue was run" in result.reason
    assert "+        return total / len(xs)" in result.model_patch
    assert "test_mean_of_floats" not in result.model_patch
    assert applies(calc_world, result.model_patch)
    assert result.checks["oracle_tests"] is False and result.checks["files"] == [
        "tests/test_ops.py"
    ]
    assert result.checks["command"].endswith("pytest -rA tests/test_ops.py")
    assert (result.checks["passing"], result.checks["failing"]) == (3, 0)
    (trial,) = result.trials
    assert trial["gates"] == {"syntax": "passed", "REPRODUCTION": "passed", "REGRESSION": "passed"}
    saved = json.loads((out / "example__calc-1" / "result.json").read_text())
    assert saved["outcome"] == "unverified" and saved["oracle_tests"] is False
    events = events_of(out)
    kinds = [e["kind"] for e in events]
    assert kinds[0] == "instance.start" and "tnr.kept" in kinds and kinds[-1] == "instance.end"
    assert events[0]["oracle_tests"] is False
    assert "instance.baseline" not in kinds  # the hidden tests' baseline never ran
    [own] = [e for e in events if e["kind"] == "instance.repo_tests"]
    assert (own["files"], own["passing"], own["reproducing"]) == (["tests/test_ops.py"], 3, 0)
    [answer] = [e for e in events if e["kind"] == "candidate.reply"]
    assert answer["text"] == reply(*FIX)["content"]  # what the model said is on record
    [usage] = [e for e in events if e["kind"] == "model.reply"]
    assert (usage["phase"], answer["candidate"]) == ("candidate", 1)


def test_with_oracle_tests_the_hidden_tests_verify_the_prediction(
    calc_world: dict[str, Any], settings: Settings
) -> None:
    model = script(calc_world["tmp"], [reply(*FIX)])
    out = calc_world["tmp"] / "out"
    result = solve_instance(calc_world["instance"], where_for(calc_world),
                            SolveOptions(model=model, candidates=1, max_iter=1, oracle_tests=True),
                            settings, out)  # fmt: skip
    assert result.outcome == "verified", result.reason
    assert result.oracle_tests and result.prediction()["oracle_tests"] is True
    assert result.localisation["signals"]["sbfl"] > 0  # SBFL over FAIL_TO_PASS
    (trial,) = result.trials
    assert trial["gates"] == {
        "syntax": "passed",
        "FAIL_TO_PASS": "passed",
        "PASS_TO_PASS": "passed",
    }
    events = events_of(out)
    assert events[0]["kind"] == "instance.start" and events[0]["oracle_tests"] is True
    assert "instance.baseline" in [e["kind"] for e in events]


BREAKS_ADD = reply(
    "def add(a, b):\n    return a + b\n\n\ndef add_all(xs):\n    total = 0",
    "def add(a, b):\n    return float(a + b) + 0.5\n\n\ndef add_all(xs):\n    total = 0",
)


def test_tnr_rolls_back_a_candidate_that_breaks_the_repositorys_tests(
    calc_world: dict[str, Any], settings: Settings
) -> None:
    model = script(calc_world["tmp"], [BREAKS_ADD, reply(*FIX)])
    where = where_for(calc_world, keep=True)
    result = solve_instance(
        calc_world["instance"],
        where,
        SolveOptions(model=model, candidates=2, max_iter=1),
        settings,
        calc_world["tmp"] / "out",
    )
    first, second = result.trials
    assert not first["passed"] and "REGRESSION broken" in first["reason"]
    assert "tests/test_ops.py::test_add" in first["grade"]["REGRESSION"]["failure"]
    assert second["passed"] and result.outcome == "unverified"
    assert "return total / len(xs)" in result.model_patch
    assert "float(a + b)" not in result.model_patch
    repo = where.workdir / "instances" / "example__calc-1" / "repo"
    assert (
        subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=repo,
            capture_output=True,
            text=True,
        ).stdout
        == ""
    )  # every trial rolled back


def test_a_candidate_outside_the_suspects_files_is_refused(
    calc_world: dict[str, Any], settings: Settings
) -> None:
    outside = reply("    return name.title()", "    return name.upper()", path="calc/report.py")
    model = script(calc_world["tmp"], [outside])
    result = solve_instance(
        calc_world["instance"],
        where_for(calc_world),
        SolveOptions(model=model, candidates=1, max_iter=1),
        settings,
        calc_world["tmp"] / "out",
    )
    (candidate,) = result.candidates
    assert any(r.startswith("allowlist:") and "calc/report.py" in r for r in candidate["refused"])
    assert result.trials == [] and result.outcome == "empty"


@pytest.mark.parametrize("oracle", [False, True], ids=["fair", "--oracle-tests"])
def test_gold_submits_the_dataset_patch(
    calc_world: dict[str, Any], settings: Settings, oracle: bool
) -> None:
    result = solve_instance(
        calc_world["instance"],
        where_for(calc_world),
        SolveOptions(model="gold", oracle_tests=oracle),
        settings,
        calc_world["tmp"] / "out",
    )
    assert (
        result.outcome == ("verified" if oracle else "unverified") and result.model_name == "gold"
    )
    assert result.model_patch == calc_world["row"]["patch"]
    assert result.localisation["function_rank"] == 1  # the planted function leads the suspects


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted tool call (the agent strategy's replies)."""
    return {
        "content": "",
        "tool_calls": [{"id": f"c_{name}", "name": name, "arguments": arguments}],
    }


@pytest.mark.parametrize(
    ("plan", "agent_settings"),
    [(False, {}), (None, {"plan": False})],
    ids=["--no-plan", "[agent] plan = false"],
)
def test_the_agent_strategy_proposes_a_candidate_that_tnr_keeps(
    calc_world: dict[str, Any], plan: bool | None, agent_settings: dict[str, Any]
) -> None:
    fix = "calc/ops.py\n<<<<<<< SEARCH\n" + FIX[0] + "\n=======\n" + FIX[1] + "\n>>>>>>> REPLACE\n"
    model = script(calc_world["tmp"], [
        call("edit", edits=fix),
        call("finish", summary="true division for floats"),
        call("approve", commit_message="fix(ops): mean of floats"),
    ])  # fmt: skip
    settings = Settings.model_validate({"agent": agent_settings})  # [agent] reaches SWE-bench
    result = solve_instance(calc_world["instance"], where_for(calc_world),
                            SolveOptions(model=model, strategy="agent", candidates=1,
                                         max_iter=1, plan=plan),
                            settings, calc_world["tmp"] / "out")  # fmt: skip
    assert result.outcome == "unverified", (result.reason, result.candidates)
    assert [c["source"] for c in result.candidates] == ["agent"]
    assert "+        return total / len(xs)" in result.model_patch
    assert result.prompt_tokens > 0  # the agent's runs are counted
    assert result.agent_steps == 3  # coder edit, finish; reviewer approve: no planner


def test_the_edit_format_setting_asks_for_a_unified_diff_and_whole_files_are_refused(
    calc_world: dict[str, Any],
) -> None:
    old, new = FIX
    udiff = (
        "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@\n"
        + "".join(f"-{line}\n" for line in old.splitlines())
        + "".join(f"+{line}\n" for line in new.splitlines())
    )
    model = script(calc_world["tmp"], [{"content": f"```diff\n{udiff}```\n"}])
    settings = Settings.model_validate({"run": {"edit_format": "udiff"}})
    out = calc_world["tmp"] / "out"
    result = solve_instance(calc_world["instance"], where_for(calc_world),
                            SolveOptions(model=model, candidates=1, max_iter=1), settings, out)  # fmt: skip
    assert result.outcome == "unverified" and result.trials[0]["passed"], result.reason
    system, task = messages_for(Prompt("a bug", []), Reader(calc_world["tmp"]), 1000, "udiff")
    assert "unified diff" in str(system["content"])
    assert "Reply with a unified diff" in str(task["content"])
    assert excerpt_format("auto") == "diff" and excerpt_format("udiff") == "udiff"
    with pytest.raises(RunError, match="excerpts of the suspect code, not whole files"):
        excerpt_format("whole")
