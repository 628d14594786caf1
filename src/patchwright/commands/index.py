"""Code-intelligence plumbing: ``patchwright index``, ``map``, ``search``, ``symbols``, ``locate``.

Each takes ``--repo DIR`` (default: the current directory) and ``--json`` (one JSON object on
stdout). Any transaction a dead patchwright left half-written is recovered first (said on
stderr, and as ``"recovered"`` in the JSON). The index is brought up to date before every
query, incrementally, so these commands are cheap to repeat. Exit codes: 0 success,
1 runtime failure, 2 usage error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from patchwright.index import RepoIndex

REPO = typer.Option(Path("."), "--repo", help="Repository folder (default: current directory).")
JSON = typer.Option(False, "--json", help="Print one JSON object on stdout.")


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


_recovered: list[str] = []  # what recovery did for this command (one command per process)


def _open(repo: Path) -> RepoIndex:
    """The index of ``repo``, after recovering any interrupted transaction there."""
    from patchwright.commands._recover import recover_first
    from patchwright.index import RepoIndex

    if not repo.is_dir():
        _fail(f"repository folder not found: {repo}")
    _recovered[:] = recover_first(repo)
    return RepoIndex(repo)


def _emit(payload: dict[str, Any]) -> None:
    from patchwright.commands._recover import with_recovered

    typer.echo(json.dumps(with_recovered(payload, _recovered), ensure_ascii=False))


def _index(repo: Path, rebuild: bool, semantic: bool, ledger: bool, as_json: bool) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    console = Console(stderr=True)
    with _open(repo) as index:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=as_json,
            transient=True,
        ) as bar:
            task = bar.add_task("indexing", total=None)
            stats = index.update(
                progress=lambda done, total: bar.update(task, completed=done, total=total),
                rebuild=rebuild,
            )
        payload: dict[str, Any] = stats.to_json()
        if semantic:
            built = index.semantic_index(force=True)
            payload["semantic"] = {
                "ok": built is not None,
                "embedded": getattr(built, "embedded", 0),
                "note": index.semantic_note,
            }
        if ledger:
            payload["ledger"] = str(index.write_ledger())
    if as_json:
        _emit(payload)
        return
    console = Console()
    console.print(
        f"indexed {stats.files} files in {stats.seconds:.2f}s: {stats.parsed} parsed, "
        f"{stats.unchanged} unchanged, {stats.removed} removed"
    )
    for language, reason in stats.unavailable.items():
        console.print(f"[yellow]no symbols for {language}[/]: {reason}")
    if "semantic" in payload:
        sem = payload["semantic"]
        console.print(f"semantic: {sem['embedded']} chunks embedded" if sem["ok"] else
                      f"[yellow]semantic search unavailable[/]: {sem['note']}")  # fmt: skip
    if ledger:
        console.print(f"wrote {payload['ledger']}")


def register(app: typer.Typer) -> None:
    """Add the index, map, search, symbols and locate commands."""

    @app.command("index")
    def index_cmd(
        repo: Path = REPO,
        rebuild: bool = typer.Option(False, "--rebuild", help="Discard the cache first."),
        semantic: bool = typer.Option(
            False, "--semantic", help="Also embed code chunks for semantic search."
        ),
        ledger: bool = typer.Option(False, "--ledger", help="Also write SYMBOLS.json."),
        as_json: bool = JSON,
    ) -> None:
        """Build or refresh the code index under .patchwright/cache/ (incremental)."""
        _index(repo, rebuild, semantic, ledger, as_json)

    @app.command("map")
    def map_cmd(
        repo: Path = REPO,
        tokens: int = typer.Option(1024, "--tokens", min=1, help="Token budget of the map."),
        focus: list[str] = typer.Option(
            [], "--focus", help="File path or identifier to rank toward (repeatable)."
        ),
        as_json: bool = JSON,
    ) -> None:
        """Print the ranked repo map: signatures of the most relevant definitions."""
        with _open(repo) as index:
            text = index.repo_map(focus=focus, tokens=tokens)
        if as_json:
            _emit({"tokens": tokens, "focus": focus, "map": text})
        else:
            typer.echo(text, nl=False)

    @app.command("search")
    def search_cmd(
        query: str = typer.Argument(..., help="Text, regex, path fragment or question."),
        repo: Path = REPO,
        mode: str = typer.Option(
            "auto", "--mode", help="exact | regex | fuzzy | bm25 | semantic | auto"
        ),
        k: int = typer.Option(20, "-k", min=1, help="Number of results."),
        as_json: bool = JSON,
    ) -> None:
        """Search the repository: lines with line numbers, files, or code chunks."""
        from patchwright.index import SearchError
        from patchwright.index.repo import MODES

        if mode not in MODES:
            _fail(f"unknown --mode {mode!r}; use one of {', '.join(MODES)}")
        with _open(repo) as index:
            try:
                hits = index.search(query, mode=mode, k=k)
            except SearchError as exc:
                _fail(str(exc), 2 if mode == "regex" else 1)
        if as_json:
            _emit({"query": query, "mode": mode, "hits": [
                {"path": h.path, "line": h.line, "score": h.score, "name": h.name, "text": h.text}
                for h in hits]})  # fmt: skip
            return
        for h in hits:
            where = f"{h.path}:{h.line}" if h.line else h.path
            detail = h.text or h.name
            typer.echo(f"{where}: {detail}" if detail else f"{where}  ({h.score})")

    @app.command("symbols")
    def symbols_cmd(
        path: str = typer.Argument(None, help="A file (default: the whole repository)."),
        repo: Path = REPO,
        as_json: bool = JSON,
    ) -> None:
        """List definitions: name, kind, line span and signature."""
        with _open(repo) as index:
            if path is not None and path not in index.symbols:
                _fail(f"not an indexed file: {path} (paths are relative to the repository)")
            defs = index.definitions(path)
        if as_json:
            _emit({"definitions": [
                {"path": d.path, "name": d.name, "qualname": d.qualname, "kind": d.kind,
                 "line": d.line, "end_line": d.end_line, "signature": d.signature}
                for d in defs]})  # fmt: skip
            return
        for d in defs:
            typer.echo(f"{d.path}:{d.line}-{d.end_line} {d.kind} {d.qualname or d.name}")

    @app.command("locate")
    def locate_cmd(
        text: str = typer.Argument(..., help="Task or issue text."),
        repo: Path = REPO,
        k: int = typer.Option(10, "-k", min=1, help="Number of files and of symbols."),
        as_json: bool = JSON,
    ) -> None:
        """Rank the files and functions a task is most likely about."""
        with _open(repo) as index:
            located = index.locate(text, k=k)
        if as_json:
            _emit(located.to_json())
            return
        for f in located.files:
            typer.echo(f"{f.score:8.4f}  {f.path}")
        if located.symbols:
            typer.echo("")
        for s in located.symbols:
            typer.echo(f"{s.score:8.4f}  {s.path}:{s.line} {s.name}")
