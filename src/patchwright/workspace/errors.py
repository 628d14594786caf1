"""Errors raised by the workspace package.

Every error says what happened and what to do; none of them leaves a file half-written.
"""

from __future__ import annotations

from collections.abc import Sequence


class WorkspaceError(Exception):
    """Base class of every error raised by ``patchwright.workspace``."""


class BinaryFileError(WorkspaceError):
    """A file holds binary data, so it cannot be read or edited as text."""


class TextEncodingError(WorkspaceError):
    """New text cannot be written in the file's own encoding without losing characters."""


class PathEscapeError(WorkspaceError):
    """A path leads outside the repository (``..``, absolute, or a symlink pointing out)."""


class TransactionError(WorkspaceError):
    """A transaction was used wrongly or could not complete; the files are left as they were."""


class UndoError(TransactionError):
    """Nothing (or not enough) to undo, or the undo history is unreadable."""


class UndoConflictError(UndoError):
    """The user changed files since patchwright wrote them; undoing would overwrite that work."""

    def __init__(self, message: str, files: Sequence[str]) -> None:
        super().__init__(message)
        self.files: list[str] = list(files)


class UntrustedJournalError(WorkspaceError):
    """A journal or undo entry patchwright cannot prove it wrote here (unsigned, signed with
    another key, tracked by git) or that names a path outside the repository: it is never
    acted on, only reported and left in place."""


class JournalKeyError(WorkspaceError):
    """The per-user key that signs journals cannot be read or created (see ``journalkey``)."""


class GitError(WorkspaceError):
    """A git operation failed or was refused (detached HEAD, uncommitted changes, no repo)."""
