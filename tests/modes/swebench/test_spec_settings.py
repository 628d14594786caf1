"""The settings table's SWE-bench cells (docs/settings.md) for the rounds and the send-backs:
``--max-iter`` counts rounds of K candidates; ``[run] max_iter`` bounds the coder rounds of
each agent candidate and is not read by the pipeline; ``[agent] max_rejections`` bounds the
send-backs of each agent candidate. Each runs ``patchwright swebench`` in process on the calc
instance, with the scripted model and the user's config in a temporary XDG directory."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from swebench_case import FIX, reply, script
from typer.testing import CliRunner

from patchwright.cli import app

BREAKS_ADD = reply(
    "def add(a, b):\n    return a + b\n\n\ndef add_all(xs):\n    total = 0",
    "def add(a, b):\n    return float(a + b) + 0.5\n\n\ndef add_all(xs):\n    total = 0",
)
FIX_BLOCK = (
    "calc/ops.py\n<<<<<<< SEARCH\n" + FIX[0] + "\n=======\n" + FIX[1] + "\n>>>>>>> REPLACE\n"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted tool call (the agent strategy's replies)."""
    return {"content": "", "tool_calls": [{"id": f"c_{name}", "name": name,
                                           "arguments": arguments}]}  # fmt: skip


def swebench(
    world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, replies: list[dict[str, Any]],
    *flags: str, config: str = "",
) -> dict[str, Any]:  # fmt: skip
    """``patchwright swebench`` on the instance with ``config`` as the user's config; the
    instance's ``result.json``, with its model calls (``model.reply`` events) added."""
    tmp = world["tmp"]
    xdg = tmp / "xdg"
    (xdg / "patchwright").mkdir(parents=True, exist_ok=True)
    (xdg / "patchwright" / "config.toml").write_text(config)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    out = tmp / "out"
    ran = CliRunner().invoke(app, [
        "swebench", "--instances", str(world["instances"]), "--repos", str(world["mirrors"]),
        "--env", "host", "--python", sys.executable, "--workdir", str(tmp / "work"),
        "-o", str(out), "--model", script(tmp, replies), "--candidates", "1", *flags,
    ])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    folder = out / "example__calc-1"
    result = json.loads((folder / "result.json").read_text())
    events = [json.loads(x) for x in (folder / "events.ndjson").read_text().splitlines()]
    result["model_calls"] = sum(e["kind"] == "model.reply" for e in events)
    return result


@pytest.mark.parametrize("max_iter", [None, "1"], ids=["default 2", "--max-iter 1"])
def test_max_iter_counts_the_rounds_of_candidates(
    calc_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, max_iter: str | None
) -> None:
    flags = ("--max-iter", max_iter) if max_iter else ()
    result = swebench(calc_world, monkeypatch, [BREAKS_ADD, reply(*FIX)], *flags)
    if max_iter == "1":  # one round: the breaking candidate, then no more
        assert [c["candidate"] for c in result["candidates"]] == [1]
        (trial,) = result["trials"]
        assert not trial["passed"] and "REGRESSION broken" in trial["reason"]
        assert result["model_calls"] == 1
        assert result["reason"].startswith("no candidate passed")
    else:  # two rounds by default: the second candidate is the fix
        assert [c["candidate"] for c in result["candidates"]] == [1, 2]
        first, second = result["trials"]
        assert not first["passed"] and second["passed"]
        assert result["model_calls"] == 2
        assert "+        return total / len(xs)" in result["model_patch"]
    assert result["outcome"] == "unverified"


# The coder finishes without a change (sent back), then makes the fix; the reviewer approves.
SENT_BACK_ONCE = [
    call("finish", summary="nothing to do"),
    call("edit", edits=FIX_BLOCK),
    call("finish", summary="true division for floats"),
    call("approve", commit_message="fix(ops): mean of floats"),
]


@pytest.mark.parametrize("config", ["", "[run]\nmax_iter = 1\n"],
                         ids=["default", "[run] max_iter = 1"])  # fmt: skip
def test_run_max_iter_bounds_the_coder_rounds_of_each_agent_candidate(
    calc_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    result = swebench(calc_world, monkeypatch, SENT_BACK_ONCE, "--strategy", "agent",
                      "--no-plan", "--max-iter", "1", config=config)  # fmt: skip
    (candidate,) = result["candidates"]
    if config:  # one coder round: the send-back ends the agent run
        assert candidate["refused"] == [
            "agent: failed: no change was kept within --max-iter 1 round(s) (sent back: "
            "you called finish without changing any file)"
        ]
        assert result["agent_steps"] == 1 and result["trials"] == []
        assert result["outcome"] == "empty"
    else:  # [run] max_iter's default (4): a second coder round makes the fix
        assert candidate["refused"] == [] and candidate["files"] == ["calc/ops.py"]
        assert result["agent_steps"] == 4
        assert result["outcome"] == "unverified"
        assert "+        return total / len(xs)" in result["model_patch"]


def test_run_max_iter_is_not_read_by_the_pipeline_candidates(
    calc_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    result = swebench(calc_world, monkeypatch, [BREAKS_ADD, reply(*FIX)],
                      config="[run]\nmax_iter = 1\n")  # fmt: skip
    assert [c["candidate"] for c in result["candidates"]] == [1, 2]  # --max-iter's 2 rounds
    first, second = result["trials"]
    assert not first["passed"] and second["passed"]
    assert result["model_calls"] == 2 and result["outcome"] == "unverified"


# The coder makes the fix; the reviewer sends it back once, then approves it.
REJECTED_ONCE = [
    call("edit", edits=FIX_BLOCK),
    call("finish", summary="true division for floats"),
    call("reject", reasons="say why in the summary"),
    call("finish", summary="true division for floats, which mean() of floats needs"),
    call("approve", commit_message="fix(ops): mean of floats"),
]


@pytest.mark.parametrize("config", ["", "[agent]\nmax_rejections = 0\n"],
                         ids=["default", "[agent] max_rejections = 0"])  # fmt: skip
def test_agent_max_rejections_bounds_the_send_backs_of_each_agent_candidate(
    calc_world: dict[str, Any], monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    result = swebench(calc_world, monkeypatch, REJECTED_ONCE, "--strategy", "agent",
                      "--no-plan", "--max-iter", "1", config=config)  # fmt: skip
    (candidate,) = result["candidates"]
    if config:  # no send-back allowed: the reviewer's reject ends the agent run
        assert candidate["refused"] == ["agent: failed: the change was sent back 1 times"]
        assert result["agent_steps"] == 3 and result["trials"] == []
        assert result["outcome"] == "empty"
    else:  # [agent] max_rejections' default (2): the change comes back and is approved
        assert candidate["refused"] == [] and candidate["files"] == ["calc/ops.py"]
        assert result["agent_steps"] == 5
        assert result["outcome"] == "unverified"
        assert "+        return total / len(xs)" in result["model_patch"]
