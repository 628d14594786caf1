"""Crash-safe multi-file transactions.

::

    with Transaction(root) as tx:
        tx.stage({"src/a.py": new_a, "old.txt": None})   # None = delete
        tx.write()              # files are new on disk, journaled, still revocable
        run_gates()             # an exception here rolls everything back
        tx.commit("fix parser") # undo entry pushed; returns its id

Leaving the ``with`` block normally commits anything not yet finished (like ``sqlite3``);
an exception rolls back. ``recover(root)`` — run at every start — rolls back every
transaction a dead process left behind, so each touched file set is all-old, or all-new
when the process died after the commit point. See :mod:`patchwright.workspace.journal`
for the on-disk format and :mod:`patchwright.workspace.undoing` for ``undo``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from patchwright.workspace import journal as jr
from patchwright.workspace import journalkey
from patchwright.workspace.atomic import atomic_write_many, fsync_dir, fsync_dirs, remove_file
from patchwright.workspace.errors import PathEscapeError, TransactionError
from patchwright.workspace.exclude import ensure_patchwright_excluded
from patchwright.workspace.journaltrust import redirected_state_dir
from patchwright.workspace.paths import confine
from patchwright.workspace.recovery import (
    finish_undo,
    prune,
    read_current,
    recover,
    restore_old,
)

__all__ = ["Transaction", "TransactionError", "recover"]

_PROTECTED = frozenset({".git", jr.STATE_DIR})
Change = tuple[bytes | None, int | None]  # (new bytes or None = delete, mode or None = keep)
_last_ns = 0


def new_file_mode() -> int:
    """The mode a new file gets here (``0o666`` less the umask); read without changing the
    umask where the kernel tells it (Linux), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _first(mode: int | None, fallback: int | None) -> int | None:
    return mode if mode is not None else fallback


def _next_ns() -> int:
    """Strictly increasing nanosecond stamp (orders undo entries by commit time)."""
    global _last_ns
    _last_ns = max(time.time_ns(), _last_ns + 1)
    return _last_ns


class Transaction:
    """All-or-nothing change of several files under ``root``, journaled for crash recovery."""

    def __init__(self, root: Path, *, keep_undo: int = 100) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise TransactionError(f"repository root {root} is not a directory")
        self.id = f"{time.time_ns():020d}-{secrets.token_hex(4)}"
        self.keep_undo = keep_undo
        self.state = "open"  # open | committed | rolled_back
        self._kind = "change"
        self._consumes: list[str] = []
        self._pending: dict[str, Change] = {}
        self._records: dict[str, jr.FileRecord] = {}
        self._created_dirs: list[str] = []
        self._pack_size = 0
        self._dir: Path | None = None
        self._lock_fd: int | None = None
        self._label = ""
        self._mac_key: bytes | None = None  # this user's journal key, read at the first journal

    # -- public API -------------------------------------------------------------------

    @property
    def touched(self) -> list[str]:
        """Repository-relative paths staged or written so far."""
        return sorted(set(self._records) | set(self._pending))

    def stage(self, changes: Mapping[str, bytes | None]) -> None:
        """Queue new contents (``None`` = delete) for :meth:`write`; validates every path first
        (raises :class:`PathEscapeError` / :class:`TransactionError`, staging nothing)."""
        self._check_open()
        keyed = {self._key(rel): (content, None) for rel, content in changes.items()}
        self._pending.update(keyed)

    def write(self) -> None:
        """Journal, then put every staged change on disk atomically. On failure the whole
        transaction is rolled back and :class:`TransactionError` is raised."""
        self._check_open()
        try:
            pending = self._journal(self._pending)
            self._pending = {}
            self._apply(pending)
        except Exception as exc:
            self.rollback()
            raise TransactionError(f"writing files failed, all changes rolled back: {exc}") from exc
        except BaseException:
            self.rollback()
            raise

    def rollback(self) -> None:
        """Restore every touched file byte-for-byte (mode kept; created files and folders
        removed) and drop the journal. A second call does nothing."""
        if self.state == "rolled_back":
            return
        if self.state == "committed":
            raise TransactionError("transaction already committed; use undo() to revert it")
        self._pending = {}
        if self._dir is not None:
            restore_old(self.root, self._dir, self._manifest())
            jr.discard(self._dir)
        self._release()
        self.state = "rolled_back"

    def commit(self, label: str = "") -> str:
        """Finalise: writes anything still staged, pushes an undo entry and returns its id
        (``""`` when nothing changed)."""
        self._check_open()
        if self._pending:
            self.write()
        self._label = label or self._label
        if self._dir is None or not self._records:
            if self._dir is not None:
                jr.discard(self._dir)
            if self._kind == "undo":  # files already as wanted: just drop the entries
                finish_undo(self.root, None, self._manifest())
            self._release()
            self.state = "committed"
            return ""
        manifest = self._manifest()
        if label:  # not fsynced: losing a label in a power cut loses nothing else
            (self._dir / jr.LABEL).write_text(label, encoding="utf-8")
        entry = self._commit_undo(manifest) if self._kind == "undo" else self._commit_change()
        self.state = "committed"
        return entry

    def __enter__(self) -> Transaction:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.state != "open":
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()

    # -- internals --------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.state != "open":
            raise TransactionError(f"transaction {self.id} is already {self.state}")

    def _key(self, rel: str) -> str:
        target = confine(self.root, rel)
        if target == self.root:
            raise PathEscapeError(f"path {rel!r} names the repository root, not a file")
        key = target.relative_to(self.root).as_posix()
        if _PROTECTED & set(key.split("/")):
            raise TransactionError(
                f"refusing to write {rel!r}: .git/ and .patchwright/ are not editable"
            )
        if target.is_dir():
            raise TransactionError(f"{rel!r} is a directory; stage files, not directories")
        for parent in target.parents:
            if parent == self.root:
                break
            if parent.exists() and not parent.is_dir():
                raise TransactionError(f"cannot write {rel!r}: {parent.name} is not a directory")
        return key

    def _stage_raw(self, changes: Mapping[str, Change]) -> None:
        """Stage contents with explicit modes (used by undo to restore old modes)."""
        self._check_open()
        self._pending.update({self._key(rel): change for rel, change in changes.items()})

    def _manifest(
        self, records: Mapping[str, jr.FileRecord] | None = None, dirs: list[str] | None = None
    ) -> jr.Manifest:
        return jr.Manifest(
            id=self.id,
            kind=self._kind,
            label=self._label,
            created=time.time(),
            files=list((self._records if records is None else records).values()),
            created_dirs=list(self._created_dirs if dirs is None else dirs),
            consumes=list(self._consumes),
        )

    def _new_journal(self) -> tuple[Path, bool]:
        """A locked, not yet visible journal folder (``.tmp-<id>``; recovery discards those).
        Reads (or creates) the journal key first: an unsigned journal would never recover."""
        self._mac_key = journalkey.load_key(create=True)
        redirected = redirected_state_dir(self.root)
        if redirected is not None:
            raise TransactionError(
                f"{redirected} is a symbolic link (to {redirected.resolve()}); patchwright keeps "
                "its journal only in a real folder inside the repository"
            )
        jdir = jr.journal_dir(self.root)
        created = not jdir.is_dir()
        jdir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            ensure_patchwright_excluded(self.root)
        tmp = jdir / (jr.TMP_PREFIX + self.id)
        tmp.mkdir()
        self._lock_fd = jr.try_lock(tmp / jr.LOCK)
        return tmp, created

    def _publish_journal(self, tmp: Path, jdir_created: bool, manifest: jr.Manifest) -> None:
        """Write the first manifest, then make the journal visible and durable in one rename."""
        assert self._mac_key is not None
        with (tmp / jr.MANIFEST).open("wb") as handle:
            handle.write(jr.signed_json(manifest, self._mac_key))
            handle.flush()
            os.fsync(handle.fileno())
        fsync_dir(tmp)
        folder = tmp.with_name(self.id)
        os.rename(tmp, folder)
        fsync_dirs([folder.parent, folder.parent.parent] if jdir_created else [folder.parent])
        self._dir = folder

    def _journal(self, pending: Mapping[str, Change]) -> dict[str, Change]:
        """Back up the old state of newly touched files and make the manifest durable.
        Returns the changes that still need applying (no-ops dropped). Nothing is recorded
        in memory until the backups are on disk."""
        todo: dict[str, Change] = {}
        fresh: dict[str, jr.FileRecord] = {}
        backups: list[bytes] = []
        offset = self._pack_size
        default_mode: int | None = None
        for key, (content, mode) in pending.items():
            record = self._records.get(key)
            if record is None:
                exists, old_mode, data = read_current(self.root / key)
                if content == (data if exists else None) and mode in (None, old_mode):
                    continue
                record = jr.FileRecord(
                    path=key, old_exists=exists, old_mode=old_mode,
                    old_sha=jr.sha256(data) if exists else None,
                    old_offset=offset, old_length=len(data),
                    new_exists=False, new_sha=None,
                )  # fmt: skip
                backups.append(data)
                offset += len(data)
                fresh[key] = record
                record.new_exists, record.new_mode = exists, old_mode  # the state on disk now
            if content is not None and mode is None and not record.new_exists:
                default_mode = default_mode or new_file_mode()
                mode = default_mode  # set explicitly, so undo knows the mode it left
            record.new_mode = None if content is None else _first(mode, record.new_mode)
            record.new_exists = content is not None
            record.new_sha = None if content is None else jr.sha256(content)
            todo[key] = (content, mode)
        if not todo:
            return todo
        folder, jdir_created = (self._dir, False) if self._dir else self._new_journal()
        with (folder / jr.PACK).open("ab") as pack:
            pack.seek(0, os.SEEK_END)
            if pack.tell() != self._pack_size:  # a failed earlier attempt left bytes behind
                pack.truncate(self._pack_size)
            for data in backups:
                pack.write(data)
            pack.flush()
            os.fsync(pack.fileno())
        records = {**self._records, **fresh}
        dirs = self._created_dirs + [d for k in fresh for d in self._missing_dirs(k)]
        manifest = self._manifest(records, list(dict.fromkeys(dirs)))
        if self._dir is None:
            self._publish_journal(folder, jdir_created, manifest)
        else:
            jr.write_manifest(folder, manifest, self._mac_key)
        self._records, self._created_dirs, self._pack_size = records, manifest.created_dirs, offset
        return todo

    def _missing_dirs(self, key: str) -> list[str]:
        """Folders (parents first) that must be created to hold ``key``."""
        missing: list[str] = []
        parent = (self.root / key).parent
        while parent != self.root and not parent.exists():
            missing.append(parent.relative_to(self.root).as_posix())
            parent = parent.parent
        return list(reversed(missing))

    def _apply(self, pending: Mapping[str, Change]) -> None:
        dirs: set[Path] = set()
        for rel in self._created_dirs:
            (self.root / rel).mkdir(exist_ok=True)
            dirs.add((self.root / rel).parent)
        writes: list[tuple[Path, bytes, int | None]] = []
        for key, (content, mode) in pending.items():
            path = self.root / key
            if content is None:
                remove_file(path, sync_dir=False)
            else:
                writes.append((path, content, mode))
            dirs.add(path.parent)
        atomic_write_many(writes, tag=self.id)
        fsync_dirs(dirs)

    def _commit_change(self) -> str:
        assert self._dir is not None
        udir = jr.undo_dir(self.root)
        udir.mkdir(parents=True, exist_ok=True)
        name = f"{_next_ns():020d}-{self.id}"
        os.rename(self._dir, udir / name)  # the commit point
        fsync_dir(udir)
        self._release()
        prune(self.root, self.keep_undo)
        return name

    def _commit_undo(self, manifest: jr.Manifest) -> str:
        assert self._dir is not None
        done = self._dir.with_name(self._dir.name + jr.DONE_SUFFIX)
        os.rename(self._dir, done)  # the commit point
        fsync_dir(done.parent)
        finish_undo(self.root, done, manifest)
        self._release()
        return ""

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None


def _new_undo_transaction(root: Path, consumes: Sequence[str]) -> Transaction:
    tx = Transaction(root)
    tx._kind = "undo"
    tx._consumes = list(consumes)
    return tx
