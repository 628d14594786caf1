"""``patchwright swebench``: run SWE-bench instances (``eval``: grade predictions)."""

from __future__ import annotations

from pathlib import Path

import typer

DEFAULT_WORKDIR = Path("~/.cache/patchwright/swebench")


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help=(
            "SWE-bench: solve instances into predictions.jsonl as leaderboards count — from the "
            "issue and the repository only; no hidden test is run, read or used unless "
            "--oracle-tests, which marks every output — or grade predictions with the hidden "
            "tests (eval)."
        ),
        no_args_is_help=False,
    )

    @group.callback(invoke_without_command=True)
    def swebench_command(
        ctx: typer.Context,
        instances: Path | None = typer.Option(None, "--instances", "-i", help="SWE-bench rows: JSONL or parquet."),
        filter_: str | None = typer.Option(None, "--filter", help="Only instance ids matching this regex."),
        slice_: str | None = typer.Option(None, "--slice", help="Only rows A:B (after --filter)."),
        repos: Path | None = typer.Option(None, "--repos", help="Mirror dir: owner__name or owner__name.git per repository."),
        online: bool = typer.Option(False, "--online", help="Clone from GitHub what --repos lacks."),
        output: Path = typer.Option(Path("swebench-out"), "--output", "-o", help="predictions.jsonl and per-instance records."),
        model: str | None = typer.Option(None, "--model", "-m", help="A model spec, or 'gold' (the dataset's own patch)."),
        strategy: str | None = typer.Option(None, "--strategy", help="How candidates are made: pipeline | agent (default: [agent] strategy when your config sets it, else pipeline)."),
        candidates: int = typer.Option(2, "--candidates", "-k", min=1, help="Replies sampled per round (K)."),
        max_iter: int = typer.Option(2, "--max-iter", min=1, help="Rounds of K candidates."),
        no_plan: bool = typer.Option(False, "--no-plan", help="Agent: skip the planner (default: the agent.plan setting)."),
        env: str = typer.Option("local", "--env", help="local (uv venv per repo/version) | host | docker."),
        python: Path | None = typer.Option(None, "--python", help="host: the interpreter to use."),
        workdir: Path = typer.Option(DEFAULT_WORKDIR, "--workdir", help="Cache: bare clones, environments, checkouts."),
        workers: int = typer.Option(1, "--workers", "-w", min=1, help="Parallel instances (Ray when > 1)."),
        ray_address: str | None = typer.Option(None, "--ray-address", help="Run on an existing Ray cluster."),
        cpus: float = typer.Option(1.0, "--cpus-per-instance", help="Ray: CPUs each instance asks for."),
        memory: float | None = typer.Option(None, "--memory-per-instance", help="Ray: GiB each instance asks for."),
        timeout: float = typer.Option(3600.0, "--timeout", help="Seconds per instance (Ray batches)."),
        test_timeout: float | None = typer.Option(None, "--test-timeout", help="Seconds per test run (default: [run] test_timeout when your config sets it, else 900)."),
        max_lines: int = typer.Option(60, "--max-lines", help="Validator: changed lines a candidate may have."),
        max_files: int = typer.Option(3, "--max-files", help="Validator: files a candidate may change."),
        keep: bool = typer.Option(False, "--keep", help="Keep each instance's checkout and virtualenv."),
        redo_errors: bool = typer.Option(False, "--redo-errors", help="Run again the instances that ended in an error."),
        reproduce: bool = typer.Option(False, "--reproduce", help="First have the model write a test reproducing the issue; a candidate must make it pass."),
        oracle_tests: bool = typer.Option(False, "--oracle-tests", help="NOT leaderboard-fair: localise and choose predictions with the hidden tests (test_patch, FAIL_TO_PASS, PASS_TO_PASS); every output is marked oracle_tests."),
    ) -> None:  # fmt: skip
        """Solve SWE-bench instances: predictions.jsonl in the official format, per instance
        events.ndjson and result.json. Resumes: instances already predicted are skipped.

        As leaderboards count: from the issue and the repository at its base commit only.
        Nothing of an instance's test_patch, FAIL_TO_PASS or PASS_TO_PASS is run, read or
        used; candidates are chosen with the repository's own tests (and, with --reproduce,
        a test the model writes from the issue). --oracle-tests uses the hidden tests
        instead and marks every output it writes."""
        if ctx.invoked_subcommand is not None:
            return
        from patchwright.modes.swebench.cli import Common, run_command

        if instances is None:
            typer.echo("error: --instances FILE is required", err=True)
            raise typer.Exit(2)
        common = Common(instances, filter_, slice_, repos, online, env, python, workdir, keep)
        code = run_command(
            common, output=output, model=model, strategy=strategy, candidates=candidates,
            max_iter=max_iter, workers=workers, ray_address=ray_address, cpus=cpus,
            memory=memory, timeout=timeout, test_timeout=test_timeout, max_lines=max_lines,
            max_files=max_files, redo_errors=redo_errors, plan=False if no_plan else None,
            oracle_tests=oracle_tests, reproduce=reproduce,
        )  # fmt: skip
        raise typer.Exit(code)

    @group.command("eval")
    def eval_command(
        instances: Path = typer.Option(..., "--instances", "-i", help="SWE-bench rows: JSONL or parquet."),
        predictions: Path = typer.Option(..., "--predictions", "-p", help="predictions.jsonl to grade."),
        repos: Path | None = typer.Option(None, "--repos", help="Mirror dir: owner__name or owner__name.git."),
        online: bool = typer.Option(False, "--online", help="Clone from GitHub what --repos lacks."),
        filter_: str | None = typer.Option(None, "--filter", help="Only instance ids matching this regex."),
        slice_: str | None = typer.Option(None, "--slice", help="Only rows A:B."),
        env: str = typer.Option("local", "--env", help="local | host | docker."),
        python: Path | None = typer.Option(None, "--python", help="host: the interpreter to use."),
        workdir: Path = typer.Option(DEFAULT_WORKDIR, "--workdir", help="Cache: bare clones, environments."),
        test_timeout: float = typer.Option(900.0, "--test-timeout", help="Seconds per test run."),
        keep: bool = typer.Option(False, "--keep", help="Keep each instance's checkout."),
    ) -> None:  # fmt: skip
        """Grade predictions with the hidden tests as the harness does; last line resolved N/M."""
        from patchwright.modes.swebench.cli import Common, eval_command

        common = Common(instances, filter_, slice_, repos, online, env, python, workdir, keep)
        raise typer.Exit(eval_command(common, predictions, test_timeout=test_timeout))

    app.add_typer(group, name="swebench")
