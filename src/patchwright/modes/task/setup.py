"""Everything a run needs before the first prompt: the repository checked and recovered, git
state understood, the model built, files readable, the index built or refreshed on first use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from patchwright.agent.session import Session
from patchwright.config import Settings
from patchwright.events import EventBus
from patchwright.llm import Model, ModelError, OnToken, redact
from patchwright.verify import detect_test_command
from patchwright.workspace.git import BRANCH_PREFIX, GitError, GitRepo, slugify
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file
from patchwright.workspace.transaction import recover

if TYPE_CHECKING:
    from patchwright.index import RepoIndex
    from patchwright.modes.task.options import RunOptions


class RunError(Exception):
    """A usage or configuration problem: the run did not start (exit code 2)."""


@dataclass
class Workspace:
    root: Path
    model: Model
    git: GitRepo | None
    test_cmd: str | None
    on_token: Callable[[str], None] | None = None
    dirty: set[str] = field(default_factory=set)
    base_branch: str | None = None
    index: Callable[[], RepoIndex | None] = lambda: None  # the session's, built on first use

    def read_file(self, path: str) -> TextFile | None:
        target = confine(self.root, path)
        if not target.exists():
            return None
        return read_text_file(target)

    def confine(self, path: str) -> None:
        confine(self.root, path)

    @staticmethod
    def redact(text: str) -> str:
        return redact(text)

    def index_ranked(self, task: str) -> list[str]:
        index = self.index()
        return [] if index is None else [f.path for f in index.locate(task, k=10).files]

    def repo_map(self, task: str) -> str:
        index = self.index()
        if index is None:
            return ""
        focus = [f.path for f in index.locate(task, k=5).files]
        return str(index.repo_map(focus=focus, tokens=600))

    def commit(self, message: str, paths: list[str], notes: list[str]) -> str | None:
        if self.git is None:
            return None
        touched_dirty = sorted(set(paths) & self.dirty)
        if touched_dirty:
            notes.append(
                "not committed: you had uncommitted changes in "
                + ", ".join(touched_dirty)
                + "; the change is on disk — review and commit it yourself"
            )
            return None
        try:
            return self.git.commit(message, paths)
        except GitError as exc:
            notes.append(f"commit failed: {exc}; the change is on disk")
            return None

    def publish(self, opts: RunOptions, message: str, notes: list[str]) -> None:
        if self.git is None or not (opts.push or opts.pr):
            return
        from patchwright.modes.task.publish import open_pr, push

        branch = self.git.current_branch() or "HEAD"
        ok, text = push(self.root, branch)
        notes.append(text)
        if ok and opts.pr:
            notes.append(
                open_pr(
                    self.root,
                    branch,
                    self.base_branch or "main",
                    message,
                    f"Task: {opts.task}\n\nMade by patchwright.",
                )[1]
            )


def _open_git(
    root: Path, opts: RunOptions, bus: EventBus, *, run_hooks: bool = False
) -> tuple[GitRepo | None, set[str], str | None]:
    if opts.no_git:
        return None, set(), None
    repo = GitRepo(root, run_hooks=run_hooks)
    if not repo.is_repo:
        bus.emit("git.absent", message="not a git repository: working without git")
        return None, set(), None
    branch = repo.current_branch()
    if branch is None and not opts.branch:
        raise RunError(
            "HEAD is detached: check out a branch first, or pass --branch to work on a new "
            "patchwright/<task> branch"
        )
    repo.ensure_excluded()
    dirty = set(repo.dirty_files())
    if opts.branch:  # works from a detached HEAD too
        name = repo.create_branch(BRANCH_PREFIX + slugify(opts.task))
        bus.emit("git.branch", branch=name)
    return repo, dirty, branch


def open_session(opts: RunOptions, settings: Settings, bus: EventBus) -> Session:
    """The session for the run's repository, after recovering any interrupted transaction."""
    root = opts.repo.expanduser().resolve()
    if not root.is_dir():
        raise RunError(f"--repo {opts.repo}: not a directory")
    try:
        session = Session(settings, root, model=opts.model, record=opts.record, bus=bus)
    except ModelError as exc:
        raise RunError(str(exc)) from exc
    recover_session(session)
    return session


def recover_session(session: Session) -> None:
    """Finish or undo an interrupted transaction before the repository is read."""
    recovered = recover(session.root)
    if recovered:
        session.bus.emit("txn.recovered", transactions=recovered)


def open_workspace(
    session: Session, opts: RunOptions, on_token: OnToken | None = None
) -> Workspace:
    root = session.root
    try:
        git, dirty, base = _open_git(
            root, opts, session.bus, run_hooks=session.settings.git.run_hooks
        )
    except GitError as exc:
        raise RunError(str(exc)) from exc
    test_cmd = opts.test_cmd or detect_test_command(root)
    return Workspace(
        root, session.model, git, test_cmd, on_token, dirty, base, lambda: session.index
    )
