"""patchwright.workspace: the repository as files — ignore-aware listing, encodings and
line endings, path confinement, crash-safe transactions with undo, and git."""

from __future__ import annotations

from patchwright.workspace.errors import (
    BinaryFileError,
    GitError,
    PathEscapeError,
    TextEncodingError,
    TransactionError,
    UndoConflictError,
    UndoError,
    WorkspaceError,
)
from patchwright.workspace.files import (
    ContextFiles,
    RepoFile,
    Skipped,
    list_files,
    read_context_files,
)
from patchwright.workspace.git import GitRepo, slugify
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, decode_bytes, encode_text, read_text_file
from patchwright.workspace.transaction import Transaction, recover, undo
from patchwright.workspace.undo import UndoEntry, list_undo

__all__ = [
    "BinaryFileError",
    "ContextFiles",
    "GitError",
    "GitRepo",
    "PathEscapeError",
    "RepoFile",
    "Skipped",
    "TextEncodingError",
    "TextFile",
    "Transaction",
    "TransactionError",
    "UndoConflictError",
    "UndoEntry",
    "UndoError",
    "WorkspaceError",
    "confine",
    "decode_bytes",
    "encode_text",
    "list_files",
    "list_undo",
    "read_context_files",
    "read_text_file",
    "recover",
    "slugify",
    "undo",
]
