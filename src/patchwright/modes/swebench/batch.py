"""Batches of instances: in process (``--workers 1`` without Ray), or as Ray tasks on a
local Ray started on demand or on an existing cluster (``--ray-address``).

Each instance is one Ray task with its resource requests (CPUs, memory) and a timeout; a
task whose worker dies is retried once by Ray (``max_retries=1``) and then recorded as an
error, never lost; an instance's own failures come back as ``error`` results. Results are
written to the predictions file as they arrive, so a batch resumes after an interruption.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from patchwright.config import Settings
from patchwright.modes.swebench.instance import SolveOptions, solve_instance
from patchwright.modes.swebench.instances import Instance
from patchwright.modes.swebench.outputs import MixedModes, Predictions, errored, mode_conflict
from patchwright.modes.swebench.ray import start_ray
from patchwright.modes.swebench.result import InstanceResult
from patchwright.modes.swebench.setup import Where
from patchwright.modes.swebench.validate import Caps

Payload = dict[str, Any]
Runner = Callable[[Payload], dict[str, Any]]


@dataclass
class BatchOptions:
    workers: int = 1
    ray_address: str | None = None
    cpus: float = 1.0  # per instance
    memory_gb: float | None = None  # per instance, for Ray's scheduler
    timeout: float = 3600.0  # per instance (Ray batches)
    redo_errors: bool = False  # run again the instances whose last result was an error
    on_ray: bool = False  # Ray even for one worker (to measure its overhead)


@dataclass
class Tally:
    """Counts for the progress line and the summary."""

    verified: int = 0
    unverified: int = 0
    empty: int = 0
    error: int = 0
    skipped: int = 0
    running: int = 0
    ray_start_seconds: float = 0.0
    results: list[InstanceResult] = field(default_factory=list)
    oracle_tests: bool = False  # every result of the batch is marked (errors included)

    def add(self, result: InstanceResult) -> None:
        result.oracle_tests = result.oracle_tests or self.oracle_tests
        setattr(self, result.outcome, getattr(self, result.outcome) + 1)
        self.results.append(result)

    def line(self) -> str:
        return (f"verified {self.verified} · unverified {self.unverified} · empty {self.empty}"
                f" · error {self.error} · running {self.running}")  # fmt: skip


def payload(
    instance: Instance, where: Where, opts: SolveOptions, settings: Settings, out: Path
) -> Payload:
    """Everything a worker needs, as plain data (picklable anywhere)."""
    return {
        "instance": asdict(instance),
        "where": {
            "workdir": str(where.workdir),
            "repos_dir": str(where.repos_dir or ""),
            "env": where.env,
            "python": str(where.python or ""),
            "online": where.online,
            "keep": where.keep,
        },
        "opts": {**asdict(opts), "caps": asdict(opts.caps)},
        "settings": settings.model_dump(mode="json"),
        "out": str(out),
    }


def run_payload(data: Payload) -> dict[str, Any]:
    """Solve one instance from a payload; the result as JSON (what a Ray task returns)."""
    fields: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in data["instance"].items()
    }
    instance = Instance(**fields)
    w = data["where"]
    where = Where(Path(w["workdir"]), Path(w["repos_dir"]) if w["repos_dir"] else None, w["env"],
                  Path(w["python"]) if w["python"] else None, w["online"], w["keep"])  # fmt: skip
    opts = SolveOptions(**{**data["opts"], "caps": Caps(**data["opts"]["caps"])})
    settings = Settings.model_validate(data["settings"])
    return solve_instance(instance, where, opts, settings, Path(data["out"])).to_json()


def _record(result: InstanceResult, predictions: Predictions, tally: Tally) -> None:
    tally.add(result)
    predictions.add(result.prediction())


def run_in_process(
    payloads: Sequence[tuple[str, Payload]], predictions: Predictions, tally: Tally,
    progress: Callable[[str], None], runner: Runner = run_payload,
) -> None:  # fmt: skip
    for instance_id, data in payloads:
        tally.running = 1
        progress(instance_id)
        try:
            result = InstanceResult.from_json(runner(data))
        except Exception as exc:
            result = InstanceResult(instance_id, reason=f"{type(exc).__name__}: {exc}")
        tally.running = 0
        _record(result, predictions, tally)
        progress(instance_id)


def run_on_ray(
    payloads: Sequence[tuple[str, Payload], ], predictions: Predictions, tally: Tally,
    progress: Callable[[str], None], batch: BatchOptions, runner: Runner = run_payload,
) -> None:  # fmt: skip
    """Submit every payload as a Ray task and collect results as they finish."""
    ray, own, seconds = start_ray(batch.workers, batch.ray_address)
    tally.ray_start_seconds = seconds
    remote = ray.remote(max_retries=1, retry_exceptions=False)(runner)
    options: dict[str, Any] = {"num_cpus": batch.cpus}
    if batch.memory_gb:
        options["memory"] = int(batch.memory_gb * 1024**3)
    pending: dict[Any, str] = {}
    for instance_id, data in payloads:
        pending[remote.options(**options).remote(data)] = instance_id
    began: dict[Any, float] = {}  # when a task got a worker (the first ``workers`` pending)
    while pending:
        for ref in list(pending)[: batch.workers]:
            began.setdefault(ref, time.monotonic())
        tally.running = min(len(pending), batch.workers)
        progress("")
        ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
        for ref in ready:
            instance_id = pending.pop(ref)
            _record(_collect(ray, ref, instance_id), predictions, tally)
            progress(instance_id)
        for ref, start in list(began.items()):
            if ref in pending and time.monotonic() - start > batch.timeout:
                ray.cancel(ref, force=True)
                reason = f"timed out after {batch.timeout:.0f}s"
                _record(InstanceResult(pending.pop(ref), reason=reason), predictions, tally)
    tally.running = 0
    if own:
        ray.shutdown()


def _collect(ray: Any, ref: Any, instance_id: str) -> InstanceResult:
    try:
        return InstanceResult.from_json(ray.get(ref))
    except Exception as exc:  # the worker died twice, or the task raised
        why = type(exc).__name__
        crashed = "WorkerCrashed" in why or "died" in str(exc).lower()
        reason = (f"the worker running it crashed, also on the retry ({why})" if crashed
                  else f"{why}: {str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else ''}")  # fmt: skip
        return InstanceResult(instance_id, reason=reason, attempts=2 if crashed else 1)


def run_batch(
    instances: Sequence[Instance], where: Where, opts: SolveOptions, settings: Settings,
    out: Path, batch: BatchOptions, *, console: Any, runner: Runner = run_payload,
) -> Tally:  # fmt: skip
    """Run the instances not yet in ``out/predictions.jsonl``, with a live progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    predictions = Predictions(out / "predictions.jsonl")
    mixed = mode_conflict(predictions, oracle=opts.oracle_tests)
    if mixed:
        raise MixedModes(mixed)
    if batch.redo_errors:
        predictions.forget(errored(out) & predictions.done)
    todo = [i for i in instances if i.instance_id not in predictions.done]
    tally = Tally(skipped=len(instances) - len(todo), oracle_tests=opts.oracle_tests)
    payloads = [(i.instance_id, payload(i, where, opts, settings, out)) for i in todo]
    columns = (TextColumn("swebench"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
               TimeElapsedColumn())  # fmt: skip
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(tally.line(), total=len(todo))

        def progress(_instance_id: str) -> None:
            bar.update(task, completed=len(tally.results), description=tally.line())

        if batch.workers <= 1 and not batch.ray_address and not batch.on_ray:
            run_in_process(payloads, predictions, tally, progress, runner)
        else:
            run_on_ray(payloads, predictions, tally, progress, batch, runner)
        progress("")
    return tally
