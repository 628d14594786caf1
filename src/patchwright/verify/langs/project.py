"""Running a whole-project checker on the tree and, when it finds problems, on the old tree;
and telling which project folder a touched file belongs to."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from patchwright.verify.context import GateContext
from patchwright.verify.langs.oldtree import OldTree, memo_key
from patchwright.verify.model import Problem, diff_problems

Check = Callable[[Path], list[Problem]]  # tree root -> problems, paths relative to it


def owners(ctx: GateContext, files: Iterable[str], marker: str) -> dict[str, list[str]]:
    """Each file's nearest folder (relative, "" for the root) holding ``marker``
    (``go.mod``, ``Cargo.toml``, ``tsconfig.json``), with the files it owns; files with none
    are left out."""
    found: dict[str, list[str]] = {}
    for file in files:
        folder = PurePosixPath(file).parent
        while True:
            rel = "" if str(folder) == "." else folder.as_posix()
            if (ctx.root / rel / marker).is_file():
                found.setdefault(rel, []).append(file)
                break
            if str(folder) in (".", ""):
                break
            folder = folder.parent
    return found


def compare(
    ctx: GateContext, tool: str, where: str, now: list[Problem], check: Check, old: OldTree,
    notes: list[str],
) -> tuple[list[Problem], list[Problem]]:  # fmt: skip
    """``(new, fixed)`` of ``now`` (``tool`` run in ``where`` on the tree) against the same
    tool on the old tree — run only when ``now`` has problems, memoized in the baseline."""
    if not now:
        return [], []
    key = memo_key(ctx, tool, where)
    if key not in ctx.baseline.memo:
        tree = old.path()
        if tree is None:
            notes.append(
                f"{tool}: the repository is too large to check as it was, so its problems in "
                "the touched files count as new"
            )
            touched = set(ctx.touched)
            return [p for p in now if p.path in touched], []
        ctx.baseline.memo[key] = check(tree)
    return diff_problems(ctx.baseline.memo[key], now)
