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
