"""``patchwright apply``: apply a model reply's edits to the working tree, all or nothing.

The reply is parsed and matched in memory (``patchwright.edits``); files are read and
written at the byte boundary by ``patchwright.workspace`` (encoding, BOM and newline
style preserved; atomic journaled write; paths confined to the repository). Recovery
runs first. Nothing is written unless every block applies, every path passes the
transaction's own checks and no parseable file is left unparseable (``--no-verify``
skips that last check). ``--dry-run`` takes the same path and stops before the write.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from patchwright.edits import ApplyResult, BlockResult, Edit, ParsedReply
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


@dataclass(frozen=True)
class _Options:
    dry_run: bool = False
    as_json: bool = False
    verify: bool = True


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


def _load(root: Path, rel: str, plan: _Plan) -> str | None:
    """Read ``rel`` once into the plan; returns an error message or None."""
    from patchwright.workspace import (
        BinaryFileError,
        Transaction,
        TransactionError,
        confine,
        read_text_file,
    )

    if rel in plan.originals:
        return None
    target = confine(root, rel)
    if target.is_dir():
        return f"{rel} is a directory, not a file"
    try:  # the write's own path checks (.git/, .patchwright/, through a file), writing nothing
        Transaction(root).stage({rel: None})
    except TransactionError as exc:
        return str(exc)
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
    """The path as ``WorkingCopy`` resolves it (``resolve_edit_path``); besides, an existing
    file the listing skips (ignored, untracked) may be named exactly."""
    from dataclasses import replace

    from patchwright.edits import PathResolutionError, resolve_edit_path
    from patchwright.workspace import BinaryFileError, confine, read_text_file

    def read(path: str) -> str | None:
        try:
            return read_text_file(confine(root, path)).text
        except (BinaryFileError, OSError):
            return None

    try:
        return resolve_edit_path(replace(edit, path=raw), repo_files, read)
    except PathResolutionError as exc:
        if (root / raw).is_file() and not exc.candidates:
            return raw
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


def _commit(
    root: Path, outcome: ApplyResult, plan: _Plan, opts: _Options
) -> tuple[dict[str, str], str | None]:
    """The one path of a dry run and a real run: encode every file, stage it (the path
    checks: inside the repository, not under ``.git/`` or ``.patchwright/``, not through a
    file), run the syntax check, then write — unless ``--dry-run``. Returns the refused
    files (path → why) and an error when the write itself failed; nothing is written
    unless both are empty."""
    from patchwright.workspace import (
        PathEscapeError,
        TextEncodingError,
        Transaction,
        TransactionError,
        encode_text,
    )

    txn = Transaction(root)
    refused: dict[str, str] = {}
    for path, text in outcome.new_texts.items():
        try:
            data = None if text is None else encode_text(text, plan.originals.get(path))
            txn.stage({path: data})
        except PathEscapeError as exc:
            refused[path], plan.escaped = f"{exc}; nothing was written", True
        except (TextEncodingError, TransactionError) as exc:
            refused[path] = f"{exc}; nothing was written"
    if not refused and opts.verify:
        refused = _syntax_refusals(root, outcome, plan)
    if refused or opts.dry_run:
        txn.rollback()
        return refused, None
    try:
        txn.write()
        txn.commit("patchwright apply")
    except (TransactionError, OSError) as exc:
        return {}, f"nothing was written: {exc}"
    return {}, None


def _syntax_refusals(root: Path, outcome: ApplyResult, plan: _Plan) -> dict[str, str]:
    """Files the change turns from parseable into unparseable (path → the first error),
    checked by the syntax gate's own parsers. A file that did not parse before is not
    refused for still not parsing; a new file must parse."""
    from patchwright.sandbox import Sandbox
    from patchwright.verify import Baseline, GateContext
    from patchwright.verify.syntax import Unavailable, checker_for

    texts = {p: t for p, t in sorted(outcome.new_texts.items()) if t is not None}
    if not texts:
        return {}
    box = Sandbox(root)  # only shell scripts use it (bash -n)
    ctx = GateContext(root, box, Baseline(root, {}, frozenset()), list(texts))
    refused: dict[str, str] = {}
    try:
        for path, text in texts.items():
            check = checker_for(ctx, path)
            if check is None:
                continue
            old = plan.originals.get(path)
            try:
                now = check(path, text)
                if not now or (old is not None and check(path, old.text)):
                    continue
            except Unavailable as exc:
                outcome.notes.append(f"{path}: syntax not checked: {exc}")
                continue
            refused[path] = (
                f"the change leaves {path} unparseable ({now[0].render()}); nothing was "
                "written. Fix the edit, or pass --no-verify to write it anyway"
            )
    finally:
        box.close()
    return refused


def _diff(plan: _Plan, new_texts: dict[str, str | None]) -> str:
    from patchwright.edits import unified_diff

    def old(path: str) -> str | None:
        before = plan.originals.get(path)
        return before.text if before is not None else None

    return unified_diff((path, old(path), new_texts[path]) for path in sorted(new_texts))


def _print_diff(text: str) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(highlight=False, soft_wrap=True)
    styles = {"+++": "bold", "---": "bold", "@@": "cyan", "+": "green", "-": "red"}
    for line in text.splitlines():
        style = next((s for p, s in styles.items() if line.startswith(p)), "")
        console.print(Text(line, style=style))


def _results(parsed: ParsedReply, plan: _Plan, inner: ApplyResult) -> ApplyResult:
    """One result per reply block, in reply order: early failures, matches, parse errors."""
    from patchwright.edits import ApplyResult, BlockResult

    results: list[BlockResult] = [plan.early[i] for i in sorted(plan.early)]
    for res, pos in zip(inner.results, plan.positions, strict=True):
        res.index = pos
        results.append(res)
    results.sort(key=lambda r: r.index)
    n = len(results)
    results += [BlockResult(n + k, "", "failed", None, e) for k, e in enumerate(parsed.errors)]
    ok = inner.ok and not plan.early and not parsed.errors and bool(results)
    return ApplyResult(ok, results, inner.new_texts if ok else {}, inner.notes)


def _refuse(outcome: ApplyResult, refused: dict[str, str]) -> None:
    """Fail every applied block of a refused file; nothing will be written."""
    for r in outcome.results:
        if r.path in refused and r.status == "applied":
            r.status, r.strategy, r.message = "failed", None, refused[r.path]
    outcome.ok, outcome.new_texts = False, {}


def _run(root: Path, reply: str, opts: _Options) -> int:
    from patchwright.commands._recover import recover_first, with_recovered
    from patchwright.edits import apply_edits, parse_reply
    from patchwright.edits import render_retry_message as retry
    from patchwright.workspace import list_files

    recovered = recover_first(root)  # before anything is read; --dry-run included
    repo_files = [f.path for f in list_files(root)]
    parsed = parse_reply(reply, known_files=repo_files)
    plan = _plan(root, parsed.edits, repo_files)
    texts = {p: (t.text if t is not None else None) for p, t in plan.originals.items()}
    outcome = _results(parsed, plan, apply_edits(plan.edits, texts))
    error = None
    if outcome.ok and outcome.new_texts:
        refused, error = _commit(root, outcome, plan, opts)
        if refused:
            _refuse(outcome, refused)
        elif error:
            outcome.ok = False
    message = _message(reply, outcome, error)
    if opts.as_json:
        typer.echo(json.dumps(with_recovered(_json(outcome, message, error), recovered)))
    else:
        _report(outcome, plan, message, opts.dry_run, retry(outcome) if outcome.results else "")
    if outcome.ok:
        return EXIT_OK
    return EXIT_USAGE if plan.escaped else EXIT_FAILED


def _message(reply: str, outcome: ApplyResult, error: str | None) -> str | None:
    """One sentence on why nothing was written; None when all went well."""
    from patchwright.edits import describe_no_edits

    if outcome.ok:
        return None
    if not outcome.results:
        return describe_no_edits(reply)
    if error:
        return error
    failed = len(outcome.failed)
    return f"{failed} of {len(outcome.results)} edit block(s) failed; nothing was written"


def _json(outcome: ApplyResult, message: str | None, error: str | None) -> dict[str, object]:
    blocks = [
        {"path": r.path, "status": r.status, "strategy": r.strategy, "message": r.message}
        for r in outcome.results
    ]
    if error:
        blocks.append({"path": "", "status": "failed", "strategy": None, "message": error})
    return {
        "ok": outcome.ok,
        "message": message,
        "files_changed": sorted(outcome.new_texts) if outcome.ok else [],
        "blocks": blocks,
    }


def _report(
    outcome: ApplyResult, plan: _Plan, message: str | None, dry_run: bool, retry: str
) -> None:
    if outcome.ok:
        _print_diff(_diff(plan, outcome.new_texts))
        for note in outcome.notes:
            typer.echo(f"note: {note}")
        for r in outcome.results:
            typer.echo(f"block {r.index + 1} {r.path}: {r.status} ({r.strategy or '-'})")
        verb = "would change" if dry_run else "changed"
        typer.echo(f"{verb} {len(outcome.new_texts)} file(s)")
        return
    if retry and not outcome.failed:  # every block matched; the write itself failed
        retry = ""
    typer.echo("\n".join(x for x in (retry, f"patchwright apply: {message}") if x), err=True)


def register(app: typer.Typer) -> None:
    """Add ``patchwright apply`` to the CLI."""

    @app.command("apply")
    def apply_command(
        reply_file: str | None = typer.Argument(
            None, help="File holding the model reply; '-' or nothing reads stdin."
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Repository root (default: cwd)."),
        dry_run: bool = typer.Option(
            False, "--dry-run", help="Every check of a real run, then write nothing."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        no_verify: bool = typer.Option(
            False, "--no-verify", help="Write even a change that leaves a file unparseable."
        ),
    ) -> None:
        """Apply the edits in a model reply to the working tree, all or nothing."""
        if not repo.is_dir():
            raise _usage(f"--repo {repo} is not a directory")
        reply = _read_reply(reply_file)
        opts = _Options(dry_run=dry_run, as_json=as_json, verify=not no_verify)
        raise typer.Exit(_run(repo.resolve(), reply, opts))
