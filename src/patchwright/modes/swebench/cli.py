"""What ``patchwright swebench`` and ``swebench eval`` do with their flags."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from patchwright.agent.request import RunError
from patchwright.agent.solve import choose_strategy
from patchwright.config import ConfigError, Settings, load_settings
from patchwright.envs import docker_available
from patchwright.llm import ModelConfigError
from patchwright.llm.catalog import Catalog
from patchwright.llm.factory import model_info, parse_spec
from patchwright.modes.swebench.batch import BatchOptions, run_batch
from patchwright.modes.swebench.eval import Graded, evaluate
from patchwright.modes.swebench.instance import GOLD, SolveOptions
from patchwright.modes.swebench.instances import Instance, InstanceError, load_instances
from patchwright.modes.swebench.outputs import read_predictions
from patchwright.modes.swebench.propose import excerpt_format
from patchwright.modes.swebench.setup import ENV_KINDS, Where
from patchwright.modes.swebench.validate import Caps

ORACLE_LINE = (
    "ORACLE TESTS: the hidden tests (test_patch, FAIL_TO_PASS, PASS_TO_PASS) localised and "
    'chose these predictions; every output is marked "oracle_tests": true. Not comparable '
    "with any leaderboard."
)
TEST_TIMEOUT = 900.0  # an instance's suite is a whole project's: longer than [run]'s default


def test_timeout_for(given: float | None, settings: Settings) -> float:
    """Seconds per test run while solving: ``--test-timeout``, else ``[run] test_timeout``
    when the user's config sets it, else :data:`TEST_TIMEOUT`."""
    if given is not None:
        return given
    return (
        settings.run.test_timeout
        if "test_timeout" in settings.run.model_fields_set
        else TEST_TIMEOUT
    )


def strategy_for(given: str | None, settings: Settings, model: str | None) -> str:
    """How candidates are made: ``--strategy``, else ``[agent] strategy`` when the user's
    config sets it (``auto`` decided by the model's catalog entry, as ``run`` does), else
    the pipeline. Raises :class:`ModelConfigError` for a model spec that is not valid."""
    if given is not None:
        return given
    if "strategy" not in settings.agent.model_fields_set:
        return "pipeline"
    wanted = settings.agent.strategy
    if model == GOLD:  # the dataset's patch needs no agent
        return "pipeline"
    if wanted != "auto":
        return wanted
    catalog = Catalog(settings.model.catalog)
    return choose_strategy(
        "auto", model_info(parse_spec(model or settings.model.name, catalog), catalog)
    )


FAIR_LINE = (
    "fair mode: nothing of test_patch, FAIL_TO_PASS or PASS_TO_PASS was run, read or used "
    "before the predictions were written (the repository's own tests chose them)."
)


@dataclass
class Common:
    instances: Path
    filter: str | None
    slice: str | None
    repos: Path | None
    online: bool
    env: str
    python: Path | None
    workdir: Path
    keep: bool

    def where(self) -> Where:
        return Where(self.workdir.expanduser().resolve(), self.repos, self.env, self.python,
                     self.online, self.keep)  # fmt: skip


def _load(common: Common, console: Console) -> list[Instance] | None:
    if common.env not in ENV_KINDS:
        console.print(f"[red]error:[/] --env {common.env}: use one of {', '.join(ENV_KINDS)}")
        return None
    try:
        return load_instances(common.instances, pattern=common.filter, window=common.slice)
    except InstanceError as exc:
        console.print(f"[red]error:[/] {exc}")
        return None


def run_command(
    common: Common, *, output: Path, model: str | None, strategy: str | None, candidates: int,
    max_iter: int, workers: int, ray_address: str | None, cpus: float, memory: float | None,
    timeout: float, test_timeout: float | None, max_lines: int, max_files: int,
    redo_errors: bool = False,
    plan: bool | None = None, oracle_tests: bool = False, reproduce: bool = False,
) -> int:  # fmt: skip
    console = Console(stderr=True)
    instances = _load(common, console)
    if instances is None:
        return 2
    try:
        settings = load_settings(None)
    except ConfigError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    try:
        strategy = strategy_for(strategy, settings, model)
    except ModelConfigError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    if plan is False and strategy != "agent":
        console.print(f"[red]error:[/] --no-plan skips the agent strategy's planner; the "
                      f"{strategy} has none: leave --no-plan out, or pass --strategy agent")  # fmt: skip
        return 2
    if strategy != "agent":
        try:
            excerpt_format(settings.run.edit_format)
        except RunError as exc:
            console.print(f"[red]error:[/] {exc}")
            return 2
    opts = SolveOptions(model=model, strategy=strategy, candidates=candidates, max_iter=max_iter,
                        plan=plan, test_timeout=test_timeout_for(test_timeout, settings),
                        caps=Caps(max_lines, max_files),
                        oracle_tests=oracle_tests, reproduce=reproduce)  # fmt: skip
    if oracle_tests:
        console.print(ORACLE_LINE, highlight=False)
    batch = BatchOptions(workers, ray_address, cpus, memory, timeout, redo_errors)
    try:
        tally = run_batch(
            instances, common.where(), opts, settings, output.resolve(), batch, console=console
        )
    except RuntimeError as exc:  # Ray missing or refusing to start
        console.print(f"[red]error:[/] {exc}")
        return 2
    for r in tally.results:
        console.print(f"{r.instance_id}: {r.outcome} — {r.reason[:200]}")
    console.print(
        f"{len(tally.results)} run, {tally.skipped} already predicted; {tally.line()}; "
        f"predictions: {output / 'predictions.jsonl'}"
    )
    console.print(ORACLE_LINE if oracle_tests else FAIR_LINE, highlight=False)
    return 0


def eval_command(common: Common, predictions_path: Path, *, test_timeout: float) -> int:
    console = Console()
    instances = _load(common, console)
    if instances is None:
        return 2
    if not predictions_path.is_file():
        console.print(f"[red]error:[/] --predictions {predictions_path}: no such file")
        return 2
    if common.env == "docker" and (why := docker_available()) is not None:
        console.print(f"[red]error:[/] {why}")
        return 2
    predictions = read_predictions(predictions_path)

    def show(g: Graded) -> None:
        mark = "[green]resolved[/]" if g.resolved else "[red]unresolved[/]"
        oracle = " (oracle tests)" if g.oracle_tests else ""
        console.print(f"{g.instance_id}: {mark}{oracle} — {g.reason}", highlight=False)

    graded = evaluate(instances, predictions, common.where(), timeout=test_timeout, on_graded=show)
    report = predictions_path.with_name(predictions_path.stem + ".eval.json")
    report.write_text(json.dumps([g.to_json() for g in graded], indent=2))
    resolved = sum(g.resolved for g in graded)
    console.print(f"report: {report}")
    oracle = sum(g.oracle_tests for g in graded)
    if oracle:
        console.print(f"ORACLE TESTS: {oracle} of these predictions were chosen with the hidden "
                      "tests (--oracle-tests): not comparable with any leaderboard", highlight=False)  # fmt: skip
    console.print(f"resolved {resolved}/{len(graded)}", highlight=False)
    return 0
