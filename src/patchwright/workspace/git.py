"""Git through the plain ``git`` CLI: detect the repo, protect the user's uncommitted work,
work on a ``patchwright/<slug>`` branch, commit given paths, diff, keep ``.patchwright/`` out.

All paths are relative to the repository's top level. Failures raise :class:`GitError`
with git's own message and what to do about it. Every call runs hardened
(:mod:`patchwright.workspace.gitsafe`): no hook, fsmonitor, filter driver or other program
named by the repository's own configuration runs — except, with ``run_hooks=True``, the
user's own ``pre-commit`` hook on :meth:`GitRepo.commit`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from patchwright.workspace.errors import GitError
from patchwright.workspace.exclude import ensure_patchwright_excluded
from patchwright.workspace.gitsafe import pre_commit_only, run_git

__all__ = ["BRANCH_PREFIX", "GitError", "GitRepo", "slugify"]

BRANCH_PREFIX = "patchwright/"
SNAPSHOT_REF = "refs/patchwright/snapshots"
_STATE = ".patchwright/"
_FALLBACK_IDENTITY = ("-c", "user.name=patchwright", "-c", "user.email=patchwright@localhost")


def slugify(text: str, max_len: int = 40) -> str:
    """A branch-safe slug: lowercase words joined by ``-`` (``"task"`` when nothing is left)."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:max_len].rstrip("-") or "task"


class GitRepo:
    """A git working tree at (or containing) ``root``."""

    def __init__(self, root: Path, *, timeout: float = 120.0, run_hooks: bool = False) -> None:
        self.root = Path(root).resolve()
        self.timeout = timeout
        self.run_hooks = run_hooks
        self._top: Path | None = None
        self._refusal: str | None = None

    # -- plumbing ---------------------------------------------------------------------

    def _run(
        self,
        *args: str,
        check: bool = True,
        env: dict[str, str] | None = None,
        ok_codes: Sequence[int] = (0,),
        hooks_dir: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        cwd = self._top or self.root
        try:
            proc = run_git(cwd, *args, env={"LC_ALL": "C", **(env or {})},
                           hooks_dir=hooks_dir, timeout=self.timeout)  # fmt: skip
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git") from exc
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"git {' '.join(args)} did not finish in {self.timeout:.0f}s") from exc
        if check and proc.returncode not in ok_codes:
            message = (proc.stderr or proc.stdout).strip() or f"exit code {proc.returncode}"
            raise GitError(f"git {' '.join(args[:3])} failed: {message}")
        return proc

    @property
    def is_repo(self) -> bool:
        """True when ``root`` is inside a git working tree."""
        if self._top is not None:
            return True
        if not self.root.is_dir():
            return False
        try:
            proc = self._run("rev-parse", "--show-toplevel", check=False)
        except GitError as exc:  # an unreadable configuration, git missing or hung
            self._refusal = str(exc)
            return False
        if proc.returncode != 0:
            return False
        top = Path(proc.stdout.strip()).resolve()
        if not (top / ".git").exists() or (top != self.root and top not in self.root.parents):
            self._refusal = (
                f"git reports {top} as the working tree of {self.root}: core.worktree in the "
                "repository's configuration points elsewhere, and patchwright will not run "
                "git on another folder. Check .git/config and remove core.worktree."
            )
            return False
        self._top = top
        return True

    @property
    def toplevel(self) -> Path:
        self.require_repo()
        assert self._top is not None
        return self._top

    def require_repo(self) -> None:
        if not self.is_repo:
            raise GitError(
                self._refusal
                or f"{self.root} is not a git repository (nor inside one); run `git init` first"
            )

    # -- state ------------------------------------------------------------------------

    def head(self) -> str | None:
        """The commit HEAD points at; None in a repository with no commits yet."""
        self.require_repo()
        proc = self._run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def current_branch(self) -> str | None:
        """The checked-out branch name; None when HEAD is detached."""
        self.require_repo()
        proc = self._run("symbolic-ref", "-q", "--short", "HEAD", check=False)
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def require_branch(self) -> str:
        """The current branch, or :class:`GitError` on a detached HEAD (never work silently)."""
        branch = self.current_branch()
        if branch is None:
            head = (self.head() or "")[:12]
            raise GitError(
                f"HEAD is detached at {head}: patchwright will not commit there. "
                "Check out a branch first (git switch -c my-branch)."
            )
        return branch

    def ls_files(self) -> list[str]:
        """Tracked and untracked-but-not-ignored files (``.gitignore`` at every level)."""
        self.require_repo()
        out = self._run("ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
        return sorted({p for p in out.split("\0") if p})

    def dirty_files(self, paths: Sequence[str] | None = None) -> list[str]:
        """Files with uncommitted changes (staged, unstaged, untracked), optionally only those
        among ``paths``. ``.patchwright/`` is never reported."""
        self.require_repo()
        out = self._run("status", "--porcelain=v1", "-z", "--untracked-files=all").stdout
        fields = out.split("\0")
        dirty: set[str] = set()
        i = 0
        while i < len(fields):
            entry = fields[i]
            i += 1
            if len(entry) < 4:
                continue
            dirty.add(entry[3:])
            if entry[0] in "RC":  # renames and copies carry the source path next
                dirty.add(fields[i])
                i += 1
        dirty = {p for p in dirty if not p.startswith(_STATE)}
        if paths is not None:
            wanted = {Path(p).as_posix() for p in paths}
            dirty &= wanted
        return sorted(dirty)

    # -- protecting the user's work ---------------------------------------------------

    def snapshot_dirty(self, message: str = "patchwright: snapshot of uncommitted work") -> str:
        """Record every uncommitted change (untracked files included) as a commit under
        ``refs/patchwright/snapshots/`` without touching the index or the working tree.
        Returns its sha; restore with ``git restore --source=<sha> -- <paths>``."""
        self.require_repo()
        git_dir = Path(self._run("rev-parse", "--absolute-git-dir").stdout.strip())
        with tempfile.TemporaryDirectory(prefix="pw-index-") as tmp:
            index = Path(tmp) / "index"
            if (git_dir / "index").exists():
                shutil.copyfile(git_dir / "index", index)
            env = {"GIT_INDEX_FILE": str(index)}
            self._run("add", "-A", "--", ".", f":(exclude){_STATE}", env=env)
            tree = self._run("write-tree", env=env).stdout.strip()
        head = self.head()
        parents = ["-p", head] if head else []
        sha = self._commit_tree(tree, parents, message)
        self._run("update-ref", f"{SNAPSHOT_REF}/{time.time_ns()}", sha)
        return sha

    def _commit_tree(self, tree: str, parents: list[str], message: str) -> str:
        ident = () if self._has_identity() else _FALLBACK_IDENTITY
        return self._run(*ident, "commit-tree", tree, *parents, "-m", message).stdout.strip()

    # -- branches and commits ---------------------------------------------------------

    def branch_exists(self, name: str) -> bool:
        proc = self._run("rev-parse", "--verify", "-q", f"refs/heads/{name}", check=False)
        return proc.returncode == 0

    def create_branch(self, name: str, *, switch: bool = True) -> str:
        """Create branch ``name`` at HEAD (``-2``, ``-3``… appended if taken) and switch to it,
        carrying uncommitted changes along. Returns the name actually used."""
        self.require_repo()
        check = self._run("check-ref-format", "--branch", name, check=False)
        if check.returncode != 0:
            raise GitError(f"{name!r} is not a valid branch name")
        final, n = name, 1
        while self.branch_exists(final):
            n += 1
            final = f"{name}-{n}"
        if switch:
            self._run("checkout", "-q", "-b", final)
        else:
            self._run("branch", final)
        return final

    def switch(self, name: str) -> None:
        self.require_repo()
        self._run("checkout", "-q", name)

    def _has_identity(self) -> bool:
        proc = self._run("config", "user.email", check=False)
        return proc.returncode == 0 and bool(proc.stdout.strip())

    def commit(self, message: str, paths: Sequence[str] | None = None) -> str:
        """Commit ``paths`` only (all changes when None) with ``message``; returns the new sha.
        Other staged changes of the user stay staged and uncommitted."""
        self.require_repo()
        if not message.strip():
            raise GitError("a commit needs a message")
        ident = () if self._has_identity() else _FALLBACK_IDENTITY
        if paths is None:
            self._run("add", "-A", "--", ".", f":(exclude){_STATE}")
            args: list[str] = []
        else:
            present = self._committable(paths)
            if not present:
                raise GitError(f"nothing to commit: none of {', '.join(paths)} changed")
            self._run("add", "-A", "--", *present)
            args = ["--only", "--", *present]
        hooks: contextlib.AbstractContextManager[Path | None] = (
            pre_commit_only(self.toplevel, {"LC_ALL": "C"})
            if self.run_hooks
            else contextlib.nullcontext(None)
        )
        with hooks as hooks_dir:
            verify = [] if hooks_dir is not None else ["--no-verify"]
            proc = self._run(*ident, "commit", "-q", *verify, "-m", message, *args,
                             check=False, hooks_dir=hooks_dir)  # fmt: skip
        if proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip()
            raise GitError(f"git commit failed: {detail}")
        head = self.head()
        assert head is not None
        return head

    def _committable(self, paths: Sequence[str]) -> list[str]:
        tracked = set(self._run("ls-files", "-z", "--", *paths).stdout.split("\0"))
        top = self.toplevel
        return [p for p in paths if (top / p).exists() or p in tracked]

    def diff(
        self, paths: Sequence[str] | None = None, *, base: str | None = None,
        staged: bool = False, include_untracked: bool = True,
    ) -> str:  # fmt: skip
        """Unified diff of the working tree (or the index with ``staged``) against ``base``
        (default: the index, or HEAD with ``staged``); untracked files appear as additions."""
        self.require_repo()
        args = ["diff", "--no-color", "--no-ext-diff", "--no-textconv"]
        if staged:
            args.append("--cached")
        if base:
            args.append(base)
        args += ["--", *(paths or [])]
        text = self._run(*args).stdout
        if include_untracked and not staged:
            untracked = self._run(
                "ls-files", "-z", "--others", "--exclude-standard", "--", *(paths or [])
            ).stdout.split("\0")
            for rel in filter(None, untracked):
                if rel.startswith(_STATE):
                    continue
                proc = self._run(
                    "diff",
                    "--no-color",
                    "--no-ext-diff",
                    "--no-textconv",
                    "--no-index",
                    "--",
                    os.devnull,
                    rel,
                    ok_codes=(0, 1),
                )
                text += proc.stdout
        return text

    def ensure_excluded(self) -> bool:
        """Add ``.patchwright/`` to ``.git/info/exclude``; True when the file changed."""
        self.require_repo()
        with contextlib.suppress(OSError):
            return ensure_patchwright_excluded(self.toplevel)
        return False
