"""The types gate's checks of Go, Rust and TypeScript projects (see the package docstring):
``go vet``, ``cargo clippy``/``cargo check``, ``tsc --noEmit`` — each for the project a touched
file belongs to, compared with the same tool on the tree as it was."""

from __future__ import annotations

import time
from pathlib import Path, PurePosixPath

from patchwright.verify.context import GateContext
from patchwright.verify.files import Comparison
from patchwright.verify.langs.golang import vet_problems
from patchwright.verify.langs.javascript import local_bin, tsc_problems
from patchwright.verify.langs.oldtree import OldTree
from patchwright.verify.langs.project import compare, owners
from patchwright.verify.langs.rust import check_problems, has_clippy
from patchwright.verify.model import GateResult, Problem, Status
from patchwright.verify.tools import ToolBroken, which

NAME = "types"
_GO = (".go",)
_GO_FILES = ("go.mod", "go.sum")
_RUST = (".rs",)
_RUST_FILES = ("Cargo.toml", "Cargo.lock")
_TS = (".ts", ".tsx", ".mts", ".cts")


def _touched(ctx: GateContext, suffixes: tuple[str, ...], names: tuple[str, ...] = ()) -> list[str]:
    return [
        t
        for t in dict.fromkeys(ctx.touched)
        if PurePosixPath(t).suffix in suffixes or PurePosixPath(t).name in names
    ]


def build_checks(ctx: GateContext) -> GateResult | None:
    """The Go, Rust and TypeScript checks of the touched files' projects; None when no such
    file was touched."""
    go, rust, ts = (
        _touched(ctx, _GO, _GO_FILES),
        _touched(ctx, _RUST, _RUST_FILES),
        _touched(ctx, _TS),
    )
    if not (go or rust or ts):
        return None
    started = time.monotonic()
    cmp = Comparison()
    ran: list[str] = []
    old = OldTree(ctx)
    try:
        _go(ctx, go, cmp, ran, old)
        _rust(ctx, rust, cmp, ran, old)
        _typescript(ctx, ts, cmp, ran, old)
    except ToolBroken as exc:
        return GateResult(NAME, "could_not_run", output=str(exc),
                          seconds=time.monotonic() - started,
                          reason=f"could not type-check: {exc}")  # fmt: skip
    finally:
        old.close()
    seconds = time.monotonic() - started
    if not ran:
        reason = (
            cmp.reason
            or "no project found for the touched files (go.mod, Cargo.toml, tsconfig.json)"
        )
        return GateResult(NAME, "skipped", seconds=seconds, reason=reason)
    status: Status = "failed" if cmp.new else "passed"
    output = "\n".join(p.render() for p in cmp.new)
    notes = [f"ran {', '.join(dict.fromkeys(ran))}", *cmp.notes]
    return GateResult(NAME, status, cmp.new, cmp.fixed, output, seconds, "; ".join(notes))


def _go(ctx: GateContext, files: list[str], cmp: Comparison, ran: list[str], old: OldTree) -> None:
    if not files:
        return
    modules = owners(ctx, files, "go.mod")
    go = which("go")
    if go is None:
        cmp.notes.append("go is not on PATH: Go packages not vetted")
        return
    for module in modules:
        ran.append("go vet")
        now = vet_problems(ctx, go, ctx.root, module)

        def vet_old(tree: Path, go: str = go, module: str = module) -> list[Problem]:
            return vet_problems(ctx, go, tree, module)

        new, fixed = compare(ctx, "go vet", module, now, vet_old, old, cmp.notes)
        cmp.new += new
        cmp.fixed += fixed


def _rust(
    ctx: GateContext, files: list[str], cmp: Comparison, ran: list[str], old: OldTree
) -> None:
    if not files:
        return
    crates = owners(ctx, files, "Cargo.toml")
    cargo = which("cargo")
    if cargo is None:
        cmp.notes.append("cargo is not on PATH: Rust crates not checked")
        return
    clippy = has_clippy(ctx, cargo) if crates else False
    verb = "cargo clippy" if clippy else "cargo check"
    for crate in crates:
        ran.append(verb)
        now = check_problems(ctx, cargo, ctx.root, crate, clippy=clippy, old=False)

        def check_old(tree: Path, cargo: str = cargo, crate: str = crate) -> list[Problem]:
            return check_problems(ctx, cargo, tree, crate, clippy=clippy, old=True)

        new, fixed = compare(ctx, verb, crate, now, check_old, old, cmp.notes)
        cmp.new += new
        cmp.fixed += fixed


def _typescript(
    ctx: GateContext, files: list[str], cmp: Comparison, ran: list[str], old: OldTree
) -> None:
    for project in owners(ctx, files, "tsconfig.json"):
        config = (PurePosixPath(project) / "tsconfig.json").as_posix()
        tsc = local_bin(ctx, config, "tsc")
        if tsc is None:
            cmp.notes.append(
                f"TypeScript is not installed for {config} (node_modules/.bin/tsc): tsc not run"
            )
            continue
        ran.append("tsc")
        now = tsc_problems(ctx, tsc, ctx.root, project)

        def tsc_old(tree: Path, tsc: Path = tsc, project: str = project) -> list[Problem]:
            return tsc_problems(ctx, tsc, tree, project)

        new, fixed = compare(ctx, "tsc", project, now, tsc_old, old, cmp.notes)
        cmp.new += new
        cmp.fixed += fixed


def combine(parts: list[GateResult]) -> GateResult:
    """One types result from its parts: failed when one failed (a new problem is the change's
    fault), else could not run when one could not, else passed when one ran, else skipped."""
    statuses = [p.status for p in parts]
    status: Status
    if "failed" in statuses:
        status = "failed"
    elif "error" in statuses or "could_not_run" in statuses:
        status = "could_not_run"
    elif "passed" in statuses:
        status = "passed"
    else:
        status = "skipped"
    shown = [p for p in parts if p.status != "skipped"] or parts
    reason = "; ".join(p.reason for p in shown if p.reason) or None
    new = [x for p in parts for x in p.new_problems]
    fixed = [x for p in parts for x in p.fixed_problems]
    output = "\n".join(p.output for p in shown if p.output)
    return GateResult(NAME, status, new, fixed, output, sum(p.seconds for p in parts), reason)
