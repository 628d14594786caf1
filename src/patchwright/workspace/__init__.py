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
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, decode_bytes, encode_text, read_text_file
from patchwright.workspace.transaction import Transaction, recover, undo

__all__ = [
    "BinaryFileError",
    "GitError",
    "PathEscapeError",
    "TextEncodingError",
    "TextFile",
    "Transaction",
    "TransactionError",
    "UndoConflictError",
    "UndoError",
    "WorkspaceError",
    "confine",
    "decode_bytes",
    "encode_text",
    "read_text_file",
    "recover",
    "undo",
]
