"""patchwright.workspace: the repository as files — ignore-aware listing, encodings and
line endings, path confinement, crash-safe transactions with undo, and git.

Public names are importable from here; submodules load lazily on first use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from patchwright.workspace.transaction import Transaction, recover
    from patchwright.workspace.undoing import UndoEntry, list_undo, undo

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

# The undo module is ``undoing``: importing a submodule binds its name on the package, so a
# submodule ``undo`` would shadow the undo() function exported here.
_HOME = {
    "ContextFiles": "files", "RepoFile": "files", "Skipped": "files", "list_files": "files",
    "read_context_files": "files", "GitRepo": "git", "slugify": "git", "confine": "paths",
    "TextFile": "textfile", "decode_bytes": "textfile", "encode_text": "textfile",
    "read_text_file": "textfile", "Transaction": "transaction", "recover": "transaction",
    "undo": "undoing", "UndoEntry": "undoing", "list_undo": "undoing",
}  # fmt: skip


def __getattr__(name: str) -> Any:
    """Import submodules on first use, so ``import patchwright.workspace.x`` stays cheap."""
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.errors"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
