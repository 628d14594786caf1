"""Batches: the CLI in process (solve, then grade), and a real Ray batch with two workers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from swebench_case import where_for
from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.config import Settings
from patchwright.modes.swebench.batch import BatchOptions, Payload, run_batch, run_payload
from patchwright.modes.swebench.cli import TEST_TIMEOUT, strategy_for
from patchwright.modes.swebench.cli import test_timeout_for as timeout_for  # not collected
from patchwright.modes.swebench.instance import SolveOptions
from patchwright.modes.swebench.instances import load_instances
from patchwright.modes.swebench.ray import start_ray


def ids(path: Path) -> list[str]:
    return [json.loads(x)["instance_id"] for x in path.read_text().splitlines()]


def test_swebench_solves_in_process_and_eval_grades_the_predictions(
    calc_batch: dict[str, Any],
) -> None:
    tmp = calc_batch["tmp"]
    common = ["--instances", str(calc_batch["instances"]), "--repos", str(calc_batch["mirrors"]),
              "--env", "host", "--python", sys.executable, "--workdir", str(tmp / "work")]  # fmt: skip
    solved = CliRunner().invoke(app, ["swebench", *common, "--slice", "0:1", "--model", "gold",
                                      "-o", str(tmp / "out")])  # fmt: skip
    assert solved.exit_code == 0, solved.output
    predictions = tmp / "out" / "predictions.jsonl"
    assert ids(predictions) == ["example__calc-1"]
    row = json.loads(predictions.read_text())
    assert row["model_name_or_path"] == "gold" and row["model_patch"] == calc_batch["row"]["patch"]
    with predictions.open("a") as handle:  # a second, wrong prediction to grade
        handle.write(
            json.dumps({**row, "instance_id": "example__calc-2", "model_patch": ""}) + "\n"
        )
    graded = CliRunner().invoke(
        app, ["swebench", "eval", *common, "--predictions", str(predictions)]
    )
    assert graded.exit_code == 0, graded.output
    lines = graded.output.strip().splitlines()
    assert "example__calc-1: resolved" in graded.output
    assert "example__calc-2: unresolved — empty patch" in graded.output
    assert lines[-1] == "resolved 1/2"


def test_eval_refuses_the_docker_environment_without_an_engine(calc_world: dict[str, Any]) -> None:
    from patchwright.envs import docker_available

    if docker_available() is None:
        pytest.skip("a Docker engine is reachable here")
    predictions = calc_world["tmp"] / "p.jsonl"
    predictions.write_text(json.dumps({"instance_id": "example__calc-1", "model_name_or_path": "m",
                                       "model_patch": calc_world["row"]["patch"]}) + "\n")  # fmt: skip
    graded = CliRunner().invoke(app, ["swebench", "eval", "--instances", str(calc_world["instances"]),
                                      "--predictions", str(predictions), "--env", "docker"])  # fmt: skip
    assert graded.exit_code == 2
    assert "no Docker engine is reachable" in graded.output or "docker CLI" in graded.output


ray = pytest.importorskip(
    "ray", reason="Ray is not installed (the swebench extra): batches run in process"
)


def crash_on_calc_3(data: Payload) -> dict[str, Any]:
    """The real runner, except that the worker running example__calc-3 dies. (Shipped to
    Ray's workers by value: they cannot import this test module.)"""
    if data["instance"]["instance_id"] == "example__calc-3":
        os._exit(1)
    return run_payload(data)


@pytest.fixture(scope="module")
def local_ray() -> Any:
    """A local Ray with two CPUs for the module (skipped, with Ray's reason, when the
    machine is too busy for its node to start)."""
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        started, own, _ = start_ray(2, None)
    except RuntimeError as exc:
        pytest.skip(str(exc))
    yield started
    if own:
        started.shutdown()


def test_a_ray_batch_writes_each_prediction_once_resumes_and_records_a_crash(
    calc_batch: dict[str, Any], settings: Settings, local_ray: Any
) -> None:
    from rich.console import Console

    instances = load_instances(calc_batch["instances"])
    where, out = where_for(calc_batch), calc_batch["tmp"] / "out"
    opts, batch = SolveOptions(model="gold"), BatchOptions(workers=2, timeout=600)
    console = Console(file=open(os.devnull, "w"))  # noqa: SIM115
    first = run_batch(instances[:2], where, opts, settings, out, batch, console=console)
    assert [r.outcome for r in first.results] == ["unverified", "unverified"]  # no issue test
    assert all(r.model_patch == calc_batch["row"]["patch"] for r in first.results)
    predictions = out / "predictions.jsonl"
    with predictions.open("a") as handle:
        handle.write('{"instance_id": "example__calc-3", "model_pa')  # torn by an interruption
    again = run_batch(
        instances, where, opts, settings, out, batch, console=console, runner=crash_on_calc_3
    )
    assert again.skipped == 2 and len(again.results) == 1
    (crashed,) = again.results
    assert crashed.outcome == "error" and crashed.attempts == 2 and "crashed" in crashed.reason
    assert sorted(ids(predictions)) == ["example__calc-1", "example__calc-2", "example__calc-3"]
    assert json.loads(predictions.read_text().splitlines()[-1])["model_patch"] == ""


def test_a_test_run_s_time_limit_comes_from_the_flag_then_the_user_s_config_then_900() -> None:
    plain, configured = Settings(), Settings.model_validate({"run": {"test_timeout": 240}})
    assert timeout_for(None, plain) == TEST_TIMEOUT == 900.0  # not [run]'s default 180
    assert timeout_for(None, configured) == 240.0
    assert timeout_for(30.0, configured) == 30.0


def test_the_strategy_comes_from_the_flag_then_the_user_s_config_then_the_pipeline() -> None:
    capable = {"name": "openai:gpt-4o"}
    configured = Settings.model_validate({"agent": {"strategy": "agent"}})
    auto = Settings.model_validate({"agent": {"strategy": "auto"}, "model": capable})
    assert strategy_for(None, Settings(), None) == "pipeline"  # not [agent]'s default auto
    assert strategy_for(None, configured, None) == "agent"
    assert strategy_for("pipeline", configured, None) == "pipeline"
    assert strategy_for(None, auto, None) == "agent"  # a tool-calling model, as run decides
    assert strategy_for(None, auto, "local:qwen2.5-coder-1.5b") == "pipeline"  # a small one
    assert strategy_for(None, configured, "gold") == "pipeline"  # the patch needs no agent


def test_no_plan_with_the_pipeline_is_refused_before_any_instance(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("")
    done = CliRunner().invoke(app, ["swebench", "--instances", str(rows), "--no-plan",
                                    "-o", str(tmp_path / "out")])  # fmt: skip
    assert done.exit_code == 2
    assert "--no-plan skips the agent strategy's planner; the pipeline has none" in done.output
    assert not (tmp_path / "out").exists()
