"""Where a repository keeps what git *executes*: its git directory (config, hooks).

``.git`` is a directory, or a file (``gitdir: PATH``) in a worktree or submodule, whose git
directory may name a shared one (``commondir``). A command that can write any of these
can plant ``core.fsmonitor`` or a hook that the next git call outside the sandbox runs,
so bubblewrap binds them read-only and the policy asks before writing under them.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

STATE_DIR = ".patchwright"


def _read_gitfile(gitfile: Path) -> Path | None:
    """The directory a ``.git`` file points to (``gitdir: PATH``), if it says so."""
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = gitfile.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            target = Path(text[len("gitdir:") :].strip())
            return (gitfile.parent / target).resolve()
    return None


def _common_dir(git_dir: Path) -> Path | None:
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = (git_dir / "commondir").read_text(encoding="utf-8").strip()
        if text:
            return (git_dir / text).resolve()
    return None


def git_dirs(root: Path) -> list[Path]:
    """``root/.git`` (directory or file) and the git directories it leads to, existing only.

    ``root/.git`` itself comes first and unresolved, so that a ``.git`` file is protected
    as a file (it could otherwise be rewritten to point elsewhere).
    """
    dot_git = root / ".git"
    if not (dot_git.is_dir() or dot_git.is_file()):
        return []
    found = [dot_git]
    if dot_git.is_symlink() or dot_git.is_dir():
        found.append(dot_git.resolve())
    else:
        target = _read_gitfile(dot_git)
        if target is not None and target.is_dir():
            found.append(target)
    for git_dir in list(found[1:]):
        common = _common_dir(git_dir)
        if common is not None and common.is_dir():
            found.append(common)
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def ensure_state_dir(root: Path) -> None:
    """Create ``root/.patchwright/`` when missing, so there is always a folder to bind
    read-only: otherwise a sandboxed command could create it and plant a journal there,
    which the next patchwright start would recover on the host. An empty folder never
    shows in ``git status``; patchwright adds ``.patchwright/`` to ``info/exclude`` when
    it first writes inside. A file or symlink already there is left as it is."""
    with contextlib.suppress(OSError):
        (root / STATE_DIR).mkdir(mode=0o755)


def protected_paths(root: Path) -> list[Path]:
    """Everything bubblewrap makes read-only inside the writable repository: the git
    directories and patchwright's own state (journal, undo entries), created first if
    missing (see :func:`ensure_state_dir`)."""
    found = git_dirs(root)
    ensure_state_dir(root)
    state = root / STATE_DIR
    if (state.is_dir() or state.is_file()) and not state.is_symlink():
        found.append(state)
    return found
