"""The pipeline on a small SWE-bench-shaped instance, with the scripted model."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from conftest import FIX, reply, script, where_for  # type: ignore[import-not-found]

from patchwright.config import Settings
from patchwright.modes.swebench import SolveOptions, solve_instance


def applies(world: dict[str, Any], patch: str) -> bool:
    bare = world["mirrors"] / "example__calc.git"
    check = world["tmp"] / "check"
    subprocess.run(["git", "clone", "-q", str(bare), str(check)], check=True)
    proc = subprocess.run(["git", "apply", "--check", "-"], cwd=check, input=patch, text=True)
    return proc.returncode == 0


def test_the_scripted_model_resolves_the_instance(
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
    assert result.outcome == "verified", result.reason
    assert "+        return total / len(xs)" in result.model_patch
    assert "test_mean_of_floats" not in result.model_patch  # the hidden tests are not in it
    assert applies(calc_world, result.model_patch)
    saved = json.loads((out / "example__calc-1" / "result.json").read_text())
    assert saved["outcome"] == "verified"
    kinds = [
        json.loads(x)["kind"]
        for x in (out / "example__calc-1" / "events.ndjson").read_text().splitlines()
    ]
    assert kinds[0] == "instance.start" and "tnr.kept" in kinds and kinds[-1] == "instance.end"
