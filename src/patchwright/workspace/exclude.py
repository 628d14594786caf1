"""Keep ``.patchwright/`` out of git without touching tracked files: add it to the
repository's ``info/exclude`` (found by walking up to ``.git``, worktrees included)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["EXCLUDE_LINE", "ensure_patchwright_excluded", "find_git_common_dir"]

EXCLUDE_LINE = ".patchwright/"
_done: set[Path] = set()


def find_git_common_dir(root: Path) -> Path | None:
    """The git directory holding ``info/`` for the repo containing ``root`` (None: no repo)."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text.split(":", 1)[1].strip()).resolve()
            commondir = gitdir / "commondir"
            if commondir.is_file():
                return (gitdir / commondir.read_text(encoding="utf-8").strip()).resolve()
            return gitdir
    return None


def ensure_patchwright_excluded(root: Path) -> bool:
    """Add ``.patchwright/`` to ``info/exclude`` once; return True when the file was changed."""
    root = Path(root).resolve()
    if root in _done:
        return False
    common = find_git_common_dir(root)
    if common is None:
        return False
    exclude = common / "info" / "exclude"
    existing = exclude.read_text(encoding="utf-8", errors="replace") if exclude.exists() else ""
    lines = {line.strip() for line in existing.splitlines()}
    changed = False
    if not lines & {EXCLUDE_LINE, ".patchwright", "/.patchwright/", "/.patchwright"}:
        exclude.parent.mkdir(parents=True, exist_ok=True)
        prefix = "" if not existing or existing.endswith("\n") else "\n"
        with exclude.open("a", encoding="utf-8") as handle:
            handle.write(f"{prefix}# patchwright state (journal, undo, runs)\n{EXCLUDE_LINE}\n")
        changed = True
    _done.add(root)
    return changed
