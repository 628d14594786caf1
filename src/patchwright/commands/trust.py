"""``patchwright trust``: let a repository's own ``.patchwright/config.toml`` set everything.

Without trust a repository's config may set only the safe list in ``patchwright.config``
(docs/security.md). Trust is recorded outside the repository, bound to the config's
SHA-256: once the file changes it is untrusted again.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("trust")
    def trust_command(
        path: Path = typer.Argument(Path("."), help="The repository (default: here)."),
        revoke: bool = typer.Option(False, "--revoke", help="Stop trusting the repository."),
        list_all: bool = typer.Option(False, "--list", help="List the trusted repositories."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Trust the repository's .patchwright/config.toml as it is now, so its settings
        beyond the safe list apply (sandbox, model, test command, MCP servers, git hooks).
        Any change to the file ends the trust."""
        from patchwright import trust

        try:
            if list_all:
                _list(as_json)
            elif revoke:
                _revoke(_repo_of(path), as_json)
            else:
                _trust(_repo_of(path), as_json)
        except trust.TrustError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None


def _repo_of(path: Path) -> Path:
    """``path`` resolved, or its git top level when only that holds a config."""
    from patchwright.trust import PROJECT_CONFIG

    folder = path.expanduser().resolve()
    if not folder.is_dir():
        typer.echo(f"error: {path} is not a directory", err=True)
        raise typer.Exit(2)
    if (folder / PROJECT_CONFIG).is_file():
        return folder
    from patchwright.workspace.git import GitError, GitRepo

    try:
        git = GitRepo(folder)
        top = git.toplevel.resolve() if git.is_repo else folder
    except GitError:
        top = folder
    return top if (top / PROJECT_CONFIG).is_file() else folder


def _trust(repo: Path, as_json: bool) -> None:
    from patchwright import trust
    from patchwright.config import ConfigError, load_settings

    try:  # a config that does not load is not worth trusting; say why instead
        settings = load_settings(repo)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if settings.project_sha256 is None:
        typer.echo(f"error: {repo} has no {trust.PROJECT_CONFIG}; nothing to trust", err=True)
        raise typer.Exit(2)
    entry = trust.record(repo, settings.project_sha256)
    if as_json:
        out = {"repo": entry.repo, "sha256": entry.sha256, "allowed": list(settings.ignored)}
        typer.echo(json.dumps({"trusted": out}))
        return
    typer.echo(f"trusted {repo / trust.PROJECT_CONFIG} (sha256 {entry.sha256[:12]})")
    if settings.ignored:
        typer.echo(f"it may now set: {', '.join(settings.ignored)}")
    typer.echo("any change to the file ends the trust; undo with: patchwright trust --revoke")


def _revoke(repo: Path, as_json: bool) -> None:
    from patchwright import trust

    removed = trust.revoke(repo)
    if as_json:
        typer.echo(json.dumps({"revoked": removed, "repo": trust.repo_key(repo)}))
    elif removed:
        typer.echo(f"no longer trusted: {repo}")
    else:
        typer.echo(f"{repo} was not trusted")


def _list(as_json: bool) -> None:
    from patchwright import trust

    found = sorted(trust.entries().values(), key=lambda e: e.repo)
    rows = [{"repo": e.repo, "sha256": e.sha256, "trusted_at": e.trusted_at,
             "status": e.status()} for e in found]  # fmt: skip
    if as_json:
        typer.echo(json.dumps({"trusted": rows, "store": str(trust.store_path())}))
        return
    if not rows:
        typer.echo("no trusted repositories")
        return
    for row in rows:
        note = "" if row["status"] == "current" else f"  ({row['status']}: not trusted now)"
        typer.echo(f"{row['repo']}  sha256 {row['sha256'][:12]}  {row['trusted_at']}{note}")
