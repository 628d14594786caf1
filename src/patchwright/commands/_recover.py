"""Recovery at every start, shared by every command that reads or writes a repository.

A transaction a dead process left half-written under ``.patchwright/journal/`` is rolled
back (or, past its commit point, finished) before the command looks at any file, and the
command says so: one line per transaction on stderr, and a ``"recovered"`` list in its
``--json`` object (present only when something was recovered). When nothing is pending it
costs a ``stat`` of the journal folder (and of its parents' up to the repository's top).

A journal patchwright cannot trust — not signed with this user's journal key, tracked by
git, naming a path outside the repository — is never acted on: the command warns on stderr
(``patchwright: warning: ignored ...``, which folder and why) and goes on.

Not a command: it defines no ``register``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import typer

__all__ = ["recover_first", "with_recovered"]

_JOURNAL = os.path.join(".patchwright", "journal")


def _state_roots(start: Path) -> Iterator[Path]:
    """``start`` and its parents up to the enclosing repository's top level (the first one
    holding ``.git``): patchwright may have written from any of them."""
    for folder in (start, *start.parents):
        yield folder
        if os.path.lexists(folder / ".git"):
            return


def _pending(folder: Path) -> bool:
    try:
        with os.scandir(folder / _JOURNAL) as entries:
            return any(True for _ in entries)
    except (FileNotFoundError, NotADirectoryError):
        return False


def recover_first(repo: Path) -> list[str]:
    """Recover every interrupted transaction around ``repo`` before a command reads it;
    print one line per transaction on stderr and return those lines. Journals that were
    ignored (untrusted, left in place) are warned about on stderr, one line each.

    Exits with code 1 (nothing read, nothing run) when a pending journal cannot be
    recovered, since the files may then be half-written."""
    from patchwright.workspace.errors import WorkspaceError
    from patchwright.workspace.recovery import recover_all

    messages: list[str] = []
    ignored: list[str] = []
    start = Path(repo).resolve()
    for folder in _state_roots(start):
        if not _pending(folder):
            continue
        try:
            result = recover_all(folder)
        except (OSError, WorkspaceError) as exc:
            _refuse(folder, str(exc))
        if result.failed:
            _refuse(folder, "; ".join(result.failed))
        messages += result.done
        where = "" if folder == start else f" (in {folder})"
        ignored += [line + where for line in result.ignored]
    for message in messages:
        typer.echo(f"patchwright: recovered: {message}", err=True)
    for line in ignored:
        typer.echo(f"patchwright: warning: {line}", err=True)
    return messages


def _refuse(folder: Path, why: str) -> NoReturn:
    typer.echo(
        f"error: an interrupted patchwright change in {folder} could not be recovered ({why}); "
        "its files may be half-written, so nothing was read or run. Fix the cause (permissions, "
        "a full disk), or check the files against the old contents kept in "
        f"{folder / _JOURNAL}/<id>/ and delete that folder, then run the command again.",
        err=True,
    )
    raise typer.Exit(1)


def with_recovered(payload: dict[str, Any], recovered: list[str]) -> dict[str, Any]:
    """``payload`` with a ``"recovered"`` field when something was recovered."""
    return {**payload, "recovered": recovered} if recovered else payload
