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

Every manifest carries a ``"mac"`` field: the HMAC of the rest of it (its canonical JSON)
with this user's key (:mod:`patchwright.workspace.journalkey`). It lives *in* the manifest,
so one atomic replace writes both and no crash can leave a manifest with a stale MAC; the
commit rename and the label file leave it valid. :func:`read_manifest` returns only a
manifest whose MAC checks out; ``old.pack`` is covered through the hashes in the manifest.
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

from patchwright.workspace import journalkey
from patchwright.workspace.atomic import atomic_write, fsync_dir
from patchwright.workspace.errors import TransactionError, UntrustedJournalError

STATE_DIR = ".patchwright"
MANIFEST = "manifest.json"
PACK = "old.pack"
LOCK = "lock"
LABEL = "label.txt"
DONE_SUFFIX = ".done"
TRASH_PREFIX = ".trash-"
TMP_PREFIX = ".tmp-"
FORMAT_VERSION = 1
MAC_FIELD = "mac"


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
    def from_dict(cls, raw: dict[str, Any]) -> Manifest:
        raw = dict(raw)
        files = [FileRecord(**item) for item in raw.pop("files", [])]
        return cls(files=files, **raw)


def signed_json(manifest: Manifest, key: bytes) -> bytes:
    """The manifest as written to disk: its JSON plus the ``"mac"`` of that JSON."""
    fields = asdict(manifest)
    fields[MAC_FIELD] = journalkey.sign(key, manifest.to_json())
    return json.dumps(fields, indent=1, sort_keys=True).encode("utf-8")


def write_manifest(folder: Path, manifest: Manifest, key: bytes | None = None) -> None:
    """Replace ``folder``'s manifest atomically, signed with ``key`` (default: this user's
    journal key, created if need be)."""
    key = key if key is not None else journalkey.load_key(create=True)
    assert key is not None
    atomic_write(folder / MANIFEST, signed_json(manifest, key), mode=0o644, tag="manifest")


def read_manifest(folder: Path, key: bytes | None) -> Manifest | None:
    """The manifest in ``folder`` if patchwright signed it with ``key``; None when absent.

    Raises :class:`UntrustedJournalError` when it is not JSON, not signed, or signed with
    another key (``key`` None: this user has no key yet), and :class:`TransactionError` when
    a signed manifest does not have a manifest's fields.
    """
    try:
        data = (folder / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    fields = _verified_fields(data, key)
    try:
        manifest = Manifest.from_dict(fields)
    except (ValueError, TypeError) as exc:
        raise TransactionError(f"journal manifest {folder / MANIFEST} is corrupt: {exc}") from exc
    with contextlib.suppress(OSError):
        manifest.label = (folder / LABEL).read_text(encoding="utf-8")
    return manifest


def _verified_fields(data: bytes, key: bytes | None) -> dict[str, Any]:
    """The manifest's fields, once its MAC is checked against their canonical JSON (so what
    is checked is exactly what is parsed: duplicate keys or odd spacing cannot slip by)."""
    try:
        fields = json.loads(data)
    except (ValueError, RecursionError):  # RecursionError: nested past Python's limit
        fields = None
    if not isinstance(fields, dict):
        raise UntrustedJournalError("its manifest.json is not a JSON object")
    mac = fields.pop(MAC_FIELD, None)
    if not isinstance(mac, str):
        raise UntrustedJournalError(
            "its manifest is not signed (written by a patchwright older than journal "
            "signing, or not by patchwright)"
        )
    if key is None:
        raise UntrustedJournalError(
            f"there is no journal key at {journalkey.key_path()}, so patchwright never signed "
            "a journal as this user"
        )
    body = json.dumps(fields, indent=1, sort_keys=True).encode("utf-8")
    if not journalkey.verify(key, body, mac):
        raise UntrustedJournalError(
            "its signature does not match this user's journal key (written by someone "
            "else's patchwright, or changed since)"
        )
    return fields


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
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
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
    try:
        fd = try_lock(lock)
    except OSError:  # a symlink (never ours) or unreadable: no live patchwright holds it
        return False
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
