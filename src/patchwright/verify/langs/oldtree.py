"""The tree as it was before the change, for tools that check a whole project at once.

``OldTree(ctx).path()`` copies the repository into the sandbox's private TMPDIR — skipping
git and patchwright's own folders, build outputs (``target``) and caches — and writes each
touched file as the baseline had it (or leaves it out, when it is new). ``node_modules``
folders are links to the real ones (read, never written). The copy is made once per gate run
and removed by ``close``. A repository past ``MAX_FILES`` files or ``MAX_BYTES`` is not copied
(``path`` returns None, and the caller says the old problems are unknown).

``memo_key`` names what a tool's old result depends on — the tool, where it ran, and the old
text of every touched file — so that it is computed once per baseline.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from patchwright.verify.context import GateContext
from patchwright.verify.tools import TooLarge, copy_tree, scratch_dir


class OldTree:
    """A scratch copy of the tree before the change (see the module docstring)."""

    def __init__(self, ctx: GateContext) -> None:
        self.ctx = ctx
        self._path: Path | None = None
        self._failed = False

    def path(self) -> Path | None:
        if self._path is None and not self._failed:
            try:
                self._path = _copy(self.ctx)
            except TooLarge:
                self._failed = True
        return self._path

    def close(self) -> None:
        if self._path is not None:
            shutil.rmtree(self._path, ignore_errors=True)
            self._path = None


def memo_key(ctx: GateContext, tool: str, where: str) -> tuple[str, str]:
    """``(label, digest)`` for ``Baseline.memo``: the tool and folder, and the old text of
    each touched file."""
    digest = hashlib.sha256()
    for path in sorted(set(ctx.touched)):
        old = ctx.baseline.old_text(path)
        digest.update(f"{path}\0{'-' if old is None else old}\0".encode())
    return (f"old:{tool}:{where}", digest.hexdigest())


def _copy(ctx: GateContext) -> Path:
    dest = scratch_dir(ctx.sandbox, "old-tree")
    copy_tree(ctx.root, dest)
    for path in set(ctx.touched):
        target = dest / path
        if ctx.baseline.knows(path) and ctx.baseline.old_text(path) is None:
            target.unlink(missing_ok=True)  # new with the change
            continue
        old = ctx.baseline.old_text(path)
        if old is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(old, encoding="utf-8")
    return dest
