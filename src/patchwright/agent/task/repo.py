"""The repository as one task sees it: its git state (the branch to work on, the user's
uncommitted files, the base branch), the test command, and files read within the
repository."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from patchwright.agent.request import RunError, TaskRequest
from patchwright.agent.session import Session
from patchwright.events import EventBus, GitAbsent, GitBranch
from patchwright.verify import detect_test_command
from patchwright.workspace.git import BRANCH_PREFIX, GitError, GitRepo, slugify
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file


@dataclass
class TaskRepo:
    root: Path
    git: GitRepo | None
    test_cmd: str | None  # the request's, the configured one, or the detected runner's
    dirty: set[str] = field(default_factory=set)  # the user's uncommitted files
    base_branch: str | None = None

    def read_file(self, path: str) -> TextFile | None:
        target = confine(self.root, path)
        if not target.exists():
            return None
        return read_text_file(target)

    def confine(self, path: str) -> None:
        confine(self.root, path)


def open_repo(session: Session, request: TaskRequest) -> TaskRepo:
    """The task's repository: git read (and a new branch made) as the request says. Raises
    :class:`RunError` when git cannot be worked with (a detached HEAD without ``--branch``)."""
    root = session.root
    try:
        git, dirty, base = _open_git(
            root, request, session.bus, run_hooks=session.settings.git.run_hooks
        )
    except GitError as exc:
        raise RunError(str(exc)) from exc
    return TaskRepo(root, git, request.test_cmd or detect_test_command(root), dirty, base)


def _open_git(
    root: Path, request: TaskRequest, bus: EventBus, *, run_hooks: bool = False
) -> tuple[GitRepo | None, set[str], str | None]:
    if not request.git.use_git:
        return None, set(), None
    repo = GitRepo(root, run_hooks=run_hooks)
    if not repo.is_repo:
        bus.emit(GitAbsent(message="not a git repository: working without git"))
        return None, set(), None
    branch = repo.current_branch()
    if branch is None and not request.git.branch:
        raise RunError(
            "HEAD is detached: check out a branch first, or pass --branch to work on a new "
            "patchwright/<task> branch"
        )
    repo.ensure_excluded()
    dirty = set(repo.dirty_files())
    if request.git.branch:  # works from a detached HEAD too
        name = repo.create_branch(BRANCH_PREFIX + slugify(request.task))
        bus.emit(GitBranch(branch=name))
    return repo, dirty, branch
