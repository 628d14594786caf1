"""``patchwright check``: run every applicable gate on the working tree, with the last commit
as the baseline.

HEAD is exported (``git archive``) into a temporary directory and the baseline is taken
there — its test outcomes, and the old text of every source file — so the user's working
tree is never touched (no stash, no checkout). The touched files are those git reports as
changed or untracked. Any transaction a dead patchwright left half-written is recovered
first. Every git call is hardened (:mod:`patchwright.workspace.gitsafe`): the repository's
configuration cannot make it run hooks, fsmonitor or filter programs. Exit codes: 0 every gate
passed or does not apply, 1 a gate failed, 2 usage, 3 no gate failed but a gate that applies
could not run (its tool is missing, could not start or crashed, or the gate crashed) — so the
change is unverified.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from patchwright.verify import Baseline, GateResult


def _fail_usage(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _export_head(root: Path, dest: Path) -> None:
    """Extract the HEAD tree of ``root`` into ``dest`` (data only: no links out)."""
    from patchwright.workspace.gitsafe import popen_git
    from patchwright.workspace.untar import extract

    proc = popen_git(root, "archive", "--format=tar", "HEAD")
    assert proc.stdout is not None
    extract(proc.stdout, dest)
    _, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"git archive HEAD failed: {err.decode(errors='replace').strip()}")


def _baseline_env(export: Path) -> dict[str, str]:
    """Put the exported code first on PYTHONPATH, so an editable install of the working tree
    does not leak the new code into the baseline's test run."""
    src = export / "src"
    return {"PYTHONPATH": f"{src}:{export}" if src.is_dir() else str(export)}


def _table(results: list[GateResult], touched: list[str], head: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from patchwright.verify.model import status_label

    colours = {"passed": "green", "failed": "red", "skipped": "yellow",
               "could_not_run": "magenta", "error": "magenta"}  # fmt: skip
    table = Table(title=f"patchwright check — {len(touched)} changed file(s) vs {head[:10]}")
    for column in ("gate", "status", "new", "fixed", "seconds", "notes"):
        table.add_column(
            column, justify="right" if column in ("new", "fixed", "seconds") else "left"
        )
    for r in results:
        status = status_label(r.status)
        table.add_row(r.name, f"[{colours[r.status]}]{status}[/]", str(len(r.new_problems)),
                      str(len(r.fixed_problems)), f"{r.seconds:.1f}", escape(r.reason or ""))  # fmt: skip
    console = Console()
    console.print(table)
    for r in results:
        for p in r.new_problems[:20]:
            console.print(f"[red]new[/] {r.name}: {escape(p.render())}", highlight=False)
        for p in r.fixed_problems[:20]:
            console.print(f"[green]fixed[/] {r.name}: {escape(p.render())}", highlight=False)
        if r.could_not_run:
            console.print(f"[magenta]could not run[/] {r.name}: {escape(r.reason or r.output)}",
                          highlight=False)  # fmt: skip


def _payload(
    results: list[GateResult], touched: list[str], head: str, baseline: Baseline
) -> dict[str, Any]:
    return {
        "ok": all(r.ok for r in results),
        "could_not_run": [r.name for r in results if r.could_not_run],
        "baseline": head,
        "touched": touched,
        "baseline_failing_tests": sorted(baseline.failing_tests),
        "gates": [r.to_dict() for r in results],
    }


def exit_code(results: list[GateResult]) -> int:
    """1 when a gate failed (the change is wrong), else 3 when a gate could not run (the change
    is unverified), else 0."""
    if any(r.status == "failed" for r in results):
        return 1
    return 3 if any(r.could_not_run for r in results) else 0


def _sandbox_settings(root: Path, as_json: bool) -> Any:
    from patchwright.config import ConfigError
    from patchwright.trust_notice import settings_for

    try:
        return settings_for(root, as_json=as_json).sandbox
    except ConfigError as exc:
        _fail_usage(str(exc))
        raise  # unreachable: _fail_usage exits


def _open_repo(repo: Path) -> tuple[Path, str, list[str]]:
    """The top level, HEAD and changed files of the repository at ``repo`` (exit 2 if none)."""
    from patchwright.workspace.git import GitError, GitRepo

    git = GitRepo(repo)
    try:
        if not git.is_repo:
            git.require_repo()
        root = git.toplevel.resolve()
        head = git.head()
        if head is None:
            _fail_usage("the repository has no commit yet: commit once, then run check")
        touched = GitRepo(root).dirty_files()
        git.ensure_excluded()  # the gates' scratch files under .patchwright/ stay unseen
    except GitError as exc:
        _fail_usage(f"{exc} (check compares your changes with the last commit)")
    assert head is not None
    return root, head, touched


def register(app: typer.Typer) -> None:
    @app.command("check")
    def check_command(
        repo: Path = typer.Option(Path("."), "--repo", help="Repository (default: here)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        test_cmd: str | None = typer.Option(
            None, "--test-cmd", help="Test command (default: detected from the repository)."
        ),
        smoke: float = typer.Option(
            0.0, "--smoke", min=0.0, help="Also start the program for this many seconds."
        ),
        test_timeout: float = typer.Option(
            600.0, "--test-timeout", min=1.0, help="Seconds before a test run is stopped."
        ),
    ) -> None:
        """Run the syntax, lint, type and test gates on your changes, against the last commit.

        Only problems the last commit did not already have count; fixed ones are listed.
        Exit codes: 0 no gate failed, 1 a gate failed, 2 usage error, 3 a gate that applies
        could not run (its tool is missing, could not start or crashed).
        """
        from patchwright.agent.session import sandbox_for
        from patchwright.commands._recover import recover_first, with_recovered
        from patchwright.verify import detect_test_command, run_gates, take_baseline
        from patchwright.workspace.errors import GitError

        if not repo.is_dir():
            _fail_usage(f"{repo} is not a directory")
        recovered = recover_first(repo)
        root, head, touched = _open_repo(repo)
        settings = _sandbox_settings(root, as_json)
        cmd = test_cmd or detect_test_command(root)
        with tempfile.TemporaryDirectory(prefix="patchwright-check-") as tmp:
            export = Path(tmp).resolve()
            try:
                _export_head(root, export)
            except GitError as exc:
                _fail_usage(str(exc))
            old_box = sandbox_for(settings, export)
            try:
                baseline = take_baseline(export, old_box, test_cmd=cmd,
                                         smoke_seconds=smoke or None, test_timeout=test_timeout,
                                         extra_env=_baseline_env(export))  # fmt: skip
            finally:
                old_box.close()
        box = sandbox_for(settings, root)
        try:
            results = run_gates(root, box, baseline, touched=touched, test_cmd=cmd,
                                stop_on_failure=False, smoke_seconds=smoke or None,
                                test_timeout=test_timeout)  # fmt: skip
        finally:
            box.close()
        if as_json:
            typer.echo(json.dumps(with_recovered(_payload(results, touched, head, baseline),
                                                 recovered)))  # fmt: skip
        else:
            _table(results, touched, head)
        raise typer.Exit(exit_code(results))
