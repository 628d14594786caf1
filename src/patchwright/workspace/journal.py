"""The on-disk journal of a transaction and the undo entries it becomes.

Layout under ``<root>/.patchwright/``::

    journal/.tmp-<id>/          being prepared: not yet visible, discarded by recovery
    journal/<id>/lock           flock held by the live process (released by the kernel on death)
    journal/<id>/manifest.json  which files, their old mode/hash/existence and new hash
    journal/<id>/old.pack       the old contents, concatenated (offsets in the manifest)
    journal/<id>/label.txt      the commit label (written at commit)
    journal/<id>.done           an undo transaction past its commit point (finish forward)
    journal/.trash-<name>       being deleted
    undo/<commit-ns>-<id>/      a committed transaction: same files, kept for ``undo``

The manifest is replaced atomically and always durable *before* any working-tree file is
touched, so a manifest on disk means "these files may be new: restore the old ones".
The commit point is one rename (journal → undo, or ``<id>`` → ``<id>.done``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from patchwright.workspace.atomic import atomic_write, fsync_dir
from patchwright.workspace.errors import TransactionError

STATE_DIR = ".patchwright"
MANIFEST = "manifest.json"
PACK = "old.pack"
LOCK = "lock"
LABEL = "label.txt"
DONE_SUFFIX = ".done"
TRASH_PREFIX = ".trash-"
TMP_PREFIX = ".tmp-"
FORMAT_VERSION = 1


def state_dir(root: Path) -> Path:
    return root / STATE_DIR


def journal_dir(root: Path) -> Path:
    return root / STATE_DIR / "journal"


def undo_dir(root: Path) -> Path:
    return root / STATE_DIR / "undo"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FileRecord:
    """One touched file: what it was (to restore) and what the transaction made it."""

    path: str
    old_exists: bool
    old_mode: int | None
    old_sha: str | None
    old_offset: int
    old_length: int
    new_exists: bool
    new_sha: str | None
    new_mode: int | None = None  # the mode patchwright left (None: unknown, older journals)


@dataclass
class Manifest:
    id: str
    kind: str = "change"  # "change" pushes an undo entry; "undo" consumes entries
    label: str = ""
    created: float = 0.0
    files: list[FileRecord] = field(default_factory=list)
    created_dirs: list[str] = field(default_factory=list)  # parents first
    consumes: list[str] = field(default_factory=list)
    version: int = FORMAT_VERSION

    def to_json(self) -> bytes:
        return json.dumps(asdict(self), indent=1, sort_keys=True).encode("utf-8")

    @classmethod
    def from_json(cls, data: bytes) -> Manifest:
        raw: dict[str, Any] = json.loads(data)
        files = [FileRecord(**item) for item in raw.pop("files", [])]
        return cls(files=files, **raw)


def write_manifest(folder: Path, manifest: Manifest) -> None:
    atomic_write(folder / MANIFEST, manifest.to_json(), mode=0o644, tag="manifest")


def read_manifest(folder: Path) -> Manifest | None:
    """The manifest in ``folder``; None when absent. Raises TransactionError if unreadable."""
    try:
        data = (folder / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    try:
        manifest = Manifest.from_json(data)
    except (ValueError, TypeError) as exc:
        raise TransactionError(f"journal manifest {folder / MANIFEST} is corrupt: {exc}") from exc
    with contextlib.suppress(OSError):
        manifest.label = (folder / LABEL).read_text(encoding="utf-8")
    return manifest


def read_old(folder: Path, record: FileRecord) -> bytes:
    """The old contents of ``record`` from the pack in ``folder`` (hash-checked)."""
    with (folder / PACK).open("rb") as pack:
        pack.seek(record.old_offset)
        data = pack.read(record.old_length)
    if record.old_sha is not None and sha256(data) != record.old_sha:
        raise TransactionError(
            f"backup of {record.path} in {folder} is damaged (hash mismatch); not restoring it"
        )
    return data


def try_lock(path: Path) -> int | None:
    """Open and exclusively flock ``path``; the fd, or None when another holder is alive."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def is_live(folder: Path) -> bool:
    """True when a running process holds the journal's lock."""
    lock = folder / LOCK
    if not lock.exists():
        return False
    fd = try_lock(lock)
    if fd is None:
        return True
    os.close(fd)
    return False


def discard(folder: Path, *, durable: bool = True) -> None:
    """Delete a journal or undo folder: rename to a trash name first (atomic), then rmtree.
    ``durable`` fsyncs the rename (needed after a rollback, not when pruning history)."""
    if not folder.exists():
        return
    trash = folder.with_name(TRASH_PREFIX + folder.name)
    if trash.exists():
        shutil.rmtree(trash, ignore_errors=True)
    os.replace(folder, trash)
    if durable:
        with contextlib.suppress(OSError):
            fsync_dir(folder.parent)
    shutil.rmtree(trash, ignore_errors=True)
