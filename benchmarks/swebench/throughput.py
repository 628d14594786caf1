"""Throughput of ``patchwright swebench``: the same instances in process (``--workers 1``
without Ray), on Ray with one worker, and on Ray with two — instances per hour, Ray's start
time, and Ray's overhead per task ((Ray, 1 worker − its start − in process) / instances).

    python benchmarks/swebench/throughput.py INSTANCES.jsonl --repos DIR --filter REGEX \
        --model gold --workdir W --out OUT

Environments are built (and cached in ``--workdir``) by a warm-up pass first, so every
measured pass runs on built environments.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

from rich.console import Console

from patchwright.config import load_settings
from patchwright.modes.swebench.batch import BatchOptions, Tally, run_batch
from patchwright.modes.swebench.instance import SolveOptions
from patchwright.modes.swebench.instances import load_instances
from patchwright.modes.swebench.setup import Where


def timed(label: str, out: Path, batch: BatchOptions, **kw: object) -> tuple[float, Tally]:
    shutil.rmtree(out, ignore_errors=True)
    started = time.monotonic()
    tally = run_batch(out=out, batch=batch, **kw)  # type: ignore[arg-type]
    wall = time.monotonic() - started
    print(f"{label}: {len(tally.results)} instances in {wall:.1f}s ({tally.line()})")
    return wall, tally


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("instances", type=Path)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--filter")
    parser.add_argument("--slice")
    parser.add_argument("--model", default="gold")
    parser.add_argument("--env", default="local")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    instances = load_instances(args.instances, pattern=args.filter, window=args.slice)
    where = Where(args.workdir.resolve(), args.repos, args.env)
    common = {"instances": instances, "where": where, "opts": SolveOptions(model=args.model),
              "settings": load_settings(None), "console": Console(stderr=True)}  # fmt: skip
    out = args.out.resolve()
    timed("warm-up (builds environments)", out / "warmup", BatchOptions(workers=1), **common)
    local, _ = timed("in process", out / "inprocess", BatchOptions(workers=1), **common)
    ray1, t1 = timed("ray, 1 worker", out / "ray1", BatchOptions(workers=1, on_ray=True), **common)
    ray2, t2 = timed("ray, 2 workers", out / "ray2", BatchOptions(workers=2), **common)
    n = len(instances)
    figures = {
        "instances": n,
        "in_process_per_hour": round(n / local * 3600, 1),
        "ray_1_worker_per_hour": round(n / ray1 * 3600, 1),
        "ray_2_workers_per_hour": round(n / ray2 * 3600, 1),
        "ray_start_seconds": round(t2.ray_start_seconds, 1),
        "ray_overhead_per_task_seconds": round((ray1 - t1.ray_start_seconds - local) / n, 2),
    }
    print(json.dumps(figures, indent=2))
    (out / "throughput.json").write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
