"""Landing a kept change: the commit (the reviewer's message, or one the model writes) and,
as the request says, the push and the pull request. A stop before the commit lands undoes
the change, so "interrupted" always means "as it was". A change handed back is not on disk:
it only goes into the result."""

from __future__ import annotations

from patchwright import interrupts
from patchwright.agent.request import TaskRequest
from patchwright.agent.session import Session
from patchwright.agent.solve_types import SolveResult, StrategyResult
from patchwright.agent.task.commit_message import clean_message, write_commit_message
from patchwright.agent.task.repo import TaskRepo
from patchwright.events import TxnUndo
from patchwright.workspace.git import GitError
from patchwright.workspace.publish import open_pr, push
from patchwright.workspace.undoing import undo


def land(
    session: Session, repo: TaskRepo, request: TaskRequest, kept: StrategyResult,
    result: SolveResult,
) -> None:  # fmt: skip
    result.files_changed, result.diff, result.changes = kept.files_changed, kept.diff, kept.changes
    if request.hand_back:
        return
    try:
        interrupts.check()
        message = ""
        if request.git.commit:
            exchange = kept.exchange if session.model.info.free_prompts else ()
            message = clean_message(kept.commit_message) or write_commit_message(
                session.model, request.task, kept.diff, exchange=exchange
            )
        interrupts.check()
        if message:
            with interrupts.held():
                result.commit = commit_change(repo, message, kept.files_changed, result.notes)
        interrupts.check()
        if result.commit:
            _publish(repo, request, message, result.notes)
    except KeyboardInterrupt:
        if result.commit is None:
            undo(repo.root, 1)
            session.bus.emit(TxnUndo(reason="interrupted before the change was kept"))
            result.files_changed, result.diff, result.changes = [], "", {}
        raise


def commit_change(repo: TaskRepo, message: str, paths: list[str], notes: list[str]) -> str | None:
    """Commit ``paths``; None (with a note saying why) when there is no git, the user had
    uncommitted changes in them, or git refused."""
    if repo.git is None:
        return None
    touched_dirty = sorted(set(paths) & repo.dirty)
    if touched_dirty:
        notes.append(
            "not committed: you had uncommitted changes in "
            + ", ".join(touched_dirty)
            + "; the change is on disk — review and commit it yourself"
        )
        return None
    try:
        return repo.git.commit(message, paths)
    except GitError as exc:
        notes.append(f"commit failed: {exc}; the change is on disk")
        return None


def _publish(repo: TaskRepo, request: TaskRequest, message: str, notes: list[str]) -> None:
    if repo.git is None or not (request.git.push or request.git.pr):
        return
    branch = repo.git.current_branch() or "HEAD"
    ok, text = push(repo.root, branch)
    notes.append(text)
    if ok and request.git.pr:
        body = f"Task: {request.task}\n\nMade by patchwright."
        notes.append(open_pr(repo.root, branch, repo.base_branch or "main", message, body)[1])
