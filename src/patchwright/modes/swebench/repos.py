"""Repositories for instances: one bare clone per repository in the cache (from a local
mirror directory, or from GitHub when online), and a git worktree per instance."""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path


class RepoError(RuntimeError):
    """A repository or commit cannot be had; the message says what to do."""


def _git(*args: str, cwd: Path | None = None, timeout: float = 900.0) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)  # fmt: skip
    if proc.returncode != 0:
        raise RepoError(f"git {' '.join(args[:3])} failed: {proc.stderr.strip()[-800:]}")
    return proc.stdout


def mirror_name(repo: str) -> str:
    """``owner/name`` → ``owner__name`` (the SWE-bench convention)."""
    return repo.replace("/", "__")


class Repos:
    """Bare clones under ``cache/repos`` and instance worktrees (see the module docstring)."""

    def __init__(self, cache: Path, mirrors: Path | None = None, *, online: bool = False) -> None:
        self.cache = Path(cache).resolve()
        self.mirrors = Path(mirrors).resolve() if mirrors else None
        self.online = online

    def find_mirror(self, repo: str) -> Path | None:
        """``owner__name`` or ``owner__name.git`` in the mirror directory (bare or not)."""
        if self.mirrors is None:
            return None
        for name in (mirror_name(repo), mirror_name(repo) + ".git"):
            candidate = self.mirrors / name
            if candidate.is_dir():
                return candidate
        return None

    def clone(self, repo: str) -> Path:
        """The cache's bare clone of ``repo``, made once (from the mirror or GitHub)."""
        target = self.cache / "repos" / f"{mirror_name(repo)}.git"
        target.parent.mkdir(parents=True, exist_ok=True)
        with (target.parent / f".{target.name}.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            if (target / "HEAD").is_file():
                return target
            source = self.find_mirror(repo)
            if source is not None:
                _git("clone", "-q", "--bare", "--local", str(source), str(target))
            elif self.online:
                _git("clone", "-q", "--bare", f"https://github.com/{repo}.git", str(target))
            else:
                where = f" in {self.mirrors}" if self.mirrors else ""
                raise RepoError(
                    f"no mirror of {repo}{where} (looked for {mirror_name(repo)} and "
                    f"{mirror_name(repo)}.git): pass --repos DIR with a clone there, or --online"
                )
        return target

    def worktree(self, repo: str, commit: str, dest: Path) -> Path:
        """A detached worktree of ``repo`` at ``commit`` in ``dest`` (replacing one there)."""
        bare = self.clone(repo)
        if dest.exists():
            self.remove(repo, dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            _git("worktree", "add", "-q", "--detach", str(dest), commit, cwd=bare)
        except RepoError as exc:
            raise RepoError(
                f"{repo} has no commit {commit[:12]} ({exc}); update the mirror"
            ) from exc
        return dest

    def remove(self, repo: str, dest: Path) -> None:
        """Remove an instance worktree (and git's record of it)."""
        bare = self.cache / "repos" / f"{mirror_name(repo)}.git"
        if bare.is_dir():
            subprocess.run(["git", "worktree", "remove", "--force", str(dest)], cwd=bare,
                           capture_output=True, check=False)  # fmt: skip
            subprocess.run(["git", "worktree", "prune"], cwd=bare, capture_output=True, check=False)
        shutil.rmtree(dest, ignore_errors=True)
