"""``patchwright apply``: apply a model reply's edits to the working tree, all or nothing.

The reply is parsed and matched in memory (``patchwright.edits``); files are read and
written at the byte boundary by ``patchwright.workspace`` (encoding, BOM and newline
style preserved; atomic journaled write; paths confined to the repository). Nothing
is written unless every block applies.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from patchwright.edits import BlockResult, Edit, Outcome
    from patchwright.workspace import TextFile

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


@dataclass
class _Plan:
    """Edits with resolved paths, the files they read, and blocks that failed early."""

    edits: list[Edit] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)  # reply index of each edit
    early: dict[int, BlockResult] = field(default_factory=dict)
    originals: dict[str, TextFile | None] = field(default_factory=dict)
    escaped: bool = False  # a path left the repository: a usage error (exit 2)


def _usage(message: str) -> typer.Exit:
    typer.echo(f"patchwright apply: {message}", err=True)
    return typer.Exit(EXIT_USAGE)


def _read_reply(source: str | None) -> str:
    if source in (None, "-"):
        return sys.stdin.read()
    path = Path(str(source))
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise _usage(f"cannot read reply file {source}: {exc.strerror or exc}") from exc


def _rel_raw(root: Path, raw: str) -> str:
    """An absolute path inside the repository becomes relative; others are left as written."""
    candidate = Path(raw.strip().strip("`'\""))
    if candidate.is_absolute():
        try:
            return candidate.resolve().relative_to(root).as_posix()
        except ValueError:
            return raw
    return raw


def _must_exist(edit: Edit) -> bool:
    return edit.kind == "delete" or (edit.kind == "replace" and bool(edit.search.strip()))


def _load(root: Path, rel: str, plan: _Plan) -> str | None:
    """Read ``rel`` once into the plan; returns an error message or None."""
    from patchwright.workspace import BinaryFileError, confine, read_text_file

    if rel in plan.originals:
        return None
    target = confine(root, rel)
    if target.is_dir():
        return f"{rel} is a directory, not a file"
    if not target.exists():
        plan.originals[rel] = None
        return None
    try:
        plan.originals[rel] = read_text_file(target)
    except BinaryFileError:
        return f"{rel} is a binary file; it cannot be edited as text"
    except OSError as exc:
        return f"cannot read {rel}: {exc.strerror or exc}"
    return None


def _resolve(root: Path, edit: Edit, raw: str, repo_files: list[str]) -> str:
    """Resolve the path; an ambiguous one is settled by where the SEARCH text is."""
    from patchwright.edits import PathResolutionError, pick_by_content, resolve_path
    from patchwright.workspace import BinaryFileError, confine, read_text_file

    if not _must_exist(edit):
        return resolve_path(raw, repo_files)
    try:
        return resolve_path(raw, repo_files, must_exist=True)
    except PathResolutionError as exc:
        texts: dict[str, str] = {}
        for cand in exc.candidates[:10]:
            try:
                texts[cand] = read_text_file(confine(root, cand)).text
            except (BinaryFileError, OSError):
                continue
        picked = pick_by_content(edit, texts) if texts else None
        if picked is not None:
            return picked
        if (root / raw).is_file() and not exc.candidates:
            return raw  # an existing file the listing skips (ignored, untracked)
        raise


def _plan(root: Path, edits: list[Edit], repo_files: list[str]) -> _Plan:
    from dataclasses import replace

    from patchwright.edits import BlockResult, EditError
    from patchwright.workspace import PathEscapeError

    plan = _Plan()
    for i, edit in enumerate(edits):
        raw = _rel_raw(root, edit.path)
        try:
            rel = _resolve(root, edit, raw, repo_files)
            problem = _load(root, rel, plan)
        except PathEscapeError as exc:
            problem, plan.escaped = str(exc), True
        except EditError as exc:
            problem = str(exc)
        if problem is not None:
            plan.early[i] = BlockResult(i, edit.path, "failed", None, problem)
            continue
        plan.edits.append(replace(edit, path=rel))
        plan.positions.append(i)
    return plan


def _encode(new_texts: dict[str, str | None], plan: _Plan) -> dict[str, bytes | None]:
    from patchwright.workspace import encode_text

    return {
        path: None if text is None else encode_text(text, plan.originals.get(path))
        for path, text in new_texts.items()
    }


def _diff(plan: _Plan, new_texts: dict[str, str | None]) -> str:
    import difflib

    chunks: list[str] = []
    for path in sorted(new_texts):
        before = plan.originals.get(path)
        old = before.text if before is not None else ""
        new = new_texts[path] or ""
        chunks.extend(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                "/dev/null" if before is None else f"a/{path}",
                "/dev/null" if new_texts[path] is None else f"b/{path}",
            )
        )
    return "".join(
        x if x.endswith("\n") else x + "\n\\ No newline at end of file\n" for x in chunks
    )


def _print_diff(text: str) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    styles = {"+++": "bold", "---": "bold", "@@": "cyan", "+": "green", "-": "red"}
    for line in text.splitlines():
        style = next((s for p, s in styles.items() if line.startswith(p)), "")
        console.print(Text(line, style=style))


def _run(root: Path, reply: str, dry_run: bool, as_json: bool) -> int:
    from patchwright.edits import BlockResult, Outcome, apply_edits, parse_reply
    from patchwright.edits import render_retry_message as retry
    from patchwright.workspace import (
        TextEncodingError,
        Transaction,
        TransactionError,
        list_files,
        recover,
    )

    if not dry_run:
        recover(root)
    repo_files = [f.path for f in list_files(root)]
    parsed = parse_reply(reply, known_files=repo_files)
    plan = _plan(root, parsed.edits, repo_files)
    texts = {p: (t.text if t is not None else None) for p, t in plan.originals.items()}
    inner = apply_edits(plan.edits, texts)
    results: list[BlockResult] = [plan.early[i] for i in sorted(plan.early)]
    for res, pos in zip(inner.results, plan.positions, strict=True):
        res.index = pos
        results.append(res)
    results.sort(key=lambda r: r.index)
    n = len(results)
    results += [BlockResult(n + k, "", "failed", None, e) for k, e in enumerate(parsed.errors)]
    ok = inner.ok and not plan.early and not parsed.errors and bool(results)
    outcome = Outcome(ok, results, inner.new_texts if ok else {}, inner.notes)
    error = None
    if ok and outcome.new_texts and not dry_run:
        try:
            data = _encode(outcome.new_texts, plan)
            with Transaction(root) as txn:
                txn.stage(data)
                txn.write()
                txn.commit("patchwright apply")
        except (TextEncodingError, TransactionError, OSError) as exc:
            outcome.ok, error = False, f"nothing was written: {exc}"
    if as_json:
        typer.echo(json.dumps(_json(outcome, error)))
    else:
        _report(outcome, plan, error, dry_run, retry(outcome) if not outcome.ok else "")
    if outcome.ok:
        return EXIT_OK
    return EXIT_USAGE if plan.escaped else EXIT_FAILED


def _json(outcome: Outcome, error: str | None) -> dict[str, object]:
    return {
        "ok": outcome.ok,
        "files_changed": sorted(outcome.new_texts) if outcome.ok else [],
        "blocks": [
            {"path": r.path, "status": r.status, "strategy": r.strategy, "message": r.message}
            for r in outcome.results
        ]
        + ([{"path": "", "status": "failed", "strategy": None, "message": error}] if error else []),
    }


def _report(outcome: Outcome, plan: _Plan, error: str | None, dry_run: bool, retry: str) -> None:
    if not outcome.results:
        typer.echo("no edits found in the reply; nothing was changed", err=True)
        return
    if outcome.ok:
        _print_diff(_diff(plan, outcome.new_texts))
        for note in outcome.notes:
            typer.echo(f"note: {note}")
        for r in outcome.results:
            typer.echo(f"block {r.index + 1} {r.path}: {r.status} ({r.strategy or '-'})")
        verb = "would change" if dry_run else "changed"
        typer.echo(f"{verb} {len(outcome.new_texts)} file(s)")
        return
    typer.echo(error or retry, err=True)


def register(app: typer.Typer) -> None:
    """Add ``patchwright apply`` to the CLI."""

    @app.command("apply")
    def apply_command(
        reply_file: str | None = typer.Argument(
            None, help="File holding the model reply; '-' or nothing reads stdin."
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Repository root (default: cwd)."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Match and show; write nothing."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """Apply the edits in a model reply to the working tree, all or nothing."""
        if not repo.is_dir():
            raise _usage(f"--repo {repo} is not a directory")
        reply = _read_reply(reply_file)
        raise typer.Exit(_run(repo.resolve(), reply, dry_run, as_json))
