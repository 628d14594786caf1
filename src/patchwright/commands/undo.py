"""``patchwright undo``: restore the state before the last N patchwright changes."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def _emit(
    as_json: bool, payload: dict[str, object], text: str, recovered: list[str], *,
    err: bool = False,
) -> None:  # fmt: skip
    if as_json:
        typer.echo(json.dumps({**payload, "recovered": recovered} if recovered else payload))
    else:
        typer.echo(text, err=err)


def _find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` holding patchwright state (else ``start``)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".patchwright" / "undo").is_dir():
            return folder
    return start


def register(app: typer.Typer) -> None:
    @app.command("undo")
    def undo_command(
        n: int = typer.Argument(1, min=1, help="How many patchwright changes to take back."),
        force: bool = typer.Option(
            False, "--force", help="Overwrite files you changed since patchwright wrote them."
        ),
        repo: Path = typer.Option(
            Path("."), "--repo", help="Repository (default: the one around this folder)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        list_only: bool = typer.Option(False, "--list", help="List undoable changes only."),
    ) -> None:
        """Restore the files touched by the last N patchwright changes to what they were.

        Refuses, naming the files, when you edited any of them since (unless --force).
        Files are restored in the working tree; git history is not rewritten. Undo entries
        patchwright did not write here (unsigned, tracked by git) are skipped, with a warning.
        """
        from patchwright.commands._recover import recover_first
        from patchwright.workspace.errors import UndoConflictError, UndoError
        from patchwright.workspace.undoing import ignored_undo, list_undo, undo

        if not repo.is_dir():
            typer.echo(f"error: {repo} is not a directory", err=True)
            raise typer.Exit(2)
        recovered = recover_first(repo)
        repo = _find_root(repo)
        for line in ignored_undo(repo):
            typer.echo(f"patchwright: warning: {line}", err=True)
        try:
            entries = list_undo(repo)
        except UndoError as exc:
            _emit(
                as_json,
                {"ok": False, "error": str(exc), "conflicts": []},
                f"error: {exc}",
                recovered,
            )
            raise typer.Exit(1) from None
        if list_only:
            rows = [{"id": e.id, "label": e.label, "files": e.files} for e in entries]
            lines = [f"{e.id}  {e.label or '-'}  ({', '.join(e.files)})" for e in entries]
            _emit(as_json, {"changes": rows}, "\n".join(lines) or "nothing to undo", recovered)
            return
        try:
            files = undo(repo, n, force=force)
        except UndoConflictError as exc:
            _emit(as_json, {"ok": False, "error": str(exc), "conflicts": exc.files},
                  f"refused: {exc}", recovered, err=True)  # fmt: skip
            raise typer.Exit(1) from None
        except UndoError as exc:
            _emit(as_json, {"ok": False, "error": str(exc), "conflicts": []}, f"error: {exc}",
                  recovered, err=True)  # fmt: skip
            raise typer.Exit(1) from None
        undone = [{"id": e.id, "label": e.label, "files": e.files} for e in entries[:n]]
        labels = ", ".join(e.label or e.id for e in entries[:n])
        _emit(
            as_json,
            {"ok": True, "undone": undone, "files": files, "forced": force},
            f"undid {n} change{'s' if n > 1 else ''} ({labels}); restored: {', '.join(files)}",
            recovered,
        )
