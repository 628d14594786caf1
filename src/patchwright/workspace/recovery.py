"""Recovery and history upkeep for transactions: restore a journal's old files, finish an
undo past its commit point, prune old undo entries, and :func:`recover` at start-up.

Only journals and undo entries that
:class:`~patchwright.workspace.journaltrust.Verifier` accepts (this user's signature, not
tracked by git, every path inside the repository) are acted on; the others are reported as
ignored and left in place."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.workspace import journal as jr
from patchwright.workspace.atomic import atomic_write, fsync_dirs, remove_file, temp_path_for
from patchwright.workspace.errors import TransactionError, UntrustedJournalError
from patchwright.workspace.journaltrust import Verifier, check_consumes

__all__ = [
    "Recovery",
    "finish_undo",
    "prune",
    "read_current",
    "recover",
    "recover_all",
    "restore_old",
    "scan_undo",
    "undo_entries",
]


def read_current(path: Path) -> tuple[bool, int | None, bytes]:
    """(exists, mode bits, bytes) of the file at ``path`` now."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False, None, b""
    if not stat.S_ISREG(info.st_mode):
        raise TransactionError(f"{path} is not a regular file; patchwright only edits files")
    return True, info.st_mode & 0o7777, path.read_bytes()


def restore_old(root: Path, folder: Path, manifest: jr.Manifest) -> list[str]:
    """Put every file of ``manifest`` back to its old state; return the paths rewritten."""
    dirs: set[Path] = set()
    changed: list[str] = []
    for record in manifest.files:
        path = root / record.path
        with contextlib.suppress(OSError):
            os.unlink(temp_path_for(path, manifest.id))
        exists, mode, data = read_current(path)
        if record.old_exists:
            if exists and mode == record.old_mode and jr.sha256(data) == record.old_sha:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            old = jr.read_old(folder, record)
            atomic_write(path, old, mode=record.old_mode, tag=manifest.id, sync_dir=False)
        elif not remove_file(path, sync_dir=False):
            continue
        changed.append(record.path)
        dirs.add(path.parent)
    for rel in reversed(manifest.created_dirs):
        with contextlib.suppress(OSError):
            (root / rel).rmdir()
            dirs.add((root / rel).parent)
    fsync_dirs(dirs)
    return changed


def finish_undo(
    root: Path, folder: Path | None, manifest: jr.Manifest | None,
    verifier: Verifier | None = None,
) -> None:  # fmt: skip
    """Complete an undo transaction past its commit point: drop the entries it consumed and
    the folders those entries had created (when now empty). A consumed entry that is not a
    trusted entry of ``.patchwright/undo/`` is left alone."""
    verifier = verifier or Verifier(root, check_git=False)
    if manifest is not None:
        check_consumes(verifier.root, manifest)
    emptied: list[str] = []
    for entry in manifest.consumes if manifest is not None else []:
        entry_dir = jr.undo_dir(root) / entry
        if not entry_dir.exists():
            continue
        try:
            consumed = verifier.manifest(entry_dir)
        except (UntrustedJournalError, TransactionError):
            continue
        emptied.extend(consumed.created_dirs)
        jr.discard(entry_dir)
    for rel in sorted(set(emptied), key=lambda r: r.count("/"), reverse=True):
        with contextlib.suppress(OSError):
            (root / rel).rmdir()
    if folder is not None:
        jr.discard(folder)


def prune(root: Path, keep: int) -> None:
    """Drop the oldest trusted undo entries beyond ``keep`` (others are not counted)."""
    if len(undo_entries(root)) <= keep:
        return
    trusted, _ = scan_undo(root)
    for name, _manifest in trusted[: max(0, len(trusted) - keep)]:
        jr.discard(jr.undo_dir(root) / name, durable=False)


def undo_entries(root: Path) -> list[str]:
    """Names of the folders under ``.patchwright/undo/`` (trusted or not), oldest first."""
    try:
        with os.scandir(jr.undo_dir(Path(root))) as it:
            return sorted(
                e.name for e in it
                if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
            )  # fmt: skip
    except FileNotFoundError:
        return []


def scan_undo(root: Path) -> tuple[list[tuple[str, jr.Manifest]], list[str]]:
    """The undo entries patchwright may use, oldest first, with their manifests; and one
    line per entry it ignores (symlinked, tracked by git, unsigned, escaping)."""
    root = Path(root).resolve()
    udir = jr.undo_dir(root)
    try:
        with os.scandir(udir) as it:
            names = sorted(e.name for e in it if e.is_dir() and not e.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    verifier = Verifier(root)
    trusted: list[tuple[str, jr.Manifest]] = []
    ignored: list[str] = []
    for name in names:
        try:
            trusted.append((name, verifier.manifest(udir / name)))
        except (UntrustedJournalError, TransactionError) as exc:
            why = exc if isinstance(exc, UntrustedJournalError) else UntrustedJournalError(exc)
            ignored.append(verifier.ignored(udir / name, why))
    return trusted, ignored


def _recover_one(verifier: Verifier, folder: Path) -> str | None:
    root = verifier.root
    name = folder.name
    verifier.screen(folder)
    if name.startswith(jr.TRASH_PREFIX):
        shutil.rmtree(folder, ignore_errors=True)
        return None
    if jr.is_live(folder):
        return None
    if name.startswith(jr.TMP_PREFIX):
        jr.discard(folder)
        return None
    manifest = verifier.manifest(folder)
    if name.endswith(jr.DONE_SUFFIX):
        finish_undo(root, folder, manifest, verifier)
        return f"finished interrupted undo {name.removesuffix(jr.DONE_SUFFIX)}"
    restored = restore_old(root, folder, manifest)
    jr.discard(folder)
    files = ", ".join(restored) if restored else "no file had changed yet"
    return f"rolled back interrupted transaction {manifest.id}: {files}"


@dataclass
class Recovery:
    """What :func:`recover_all` did: one line per transaction finished or rolled back, one
    per journal it could not use (its files may be half-written), and one per journal it
    ignored because patchwright cannot trust it (left in place, nothing it names touched)."""

    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)


def recover_all(root: Path) -> Recovery:
    """Finish what dead processes left under ``.patchwright/journal/`` (run at every start).

    Interrupted transactions are rolled back (all-old); undo transactions past their commit
    point are completed (all-new). Journals held by a live process are left alone; a
    journal that cannot be read or restored is left in place and reported as failed; one
    patchwright cannot trust (see :mod:`patchwright.workspace.journaltrust`) is reported as
    ignored and left in place.
    """
    root = Path(root).resolve()
    result = Recovery()
    verifier = Verifier(root)
    jdir = jr.journal_dir(root)
    if jdir.is_dir():
        for folder in sorted(p for p in jdir.iterdir() if p.is_dir()):
            try:
                message = _recover_one(verifier, folder)
            except UntrustedJournalError as exc:
                result.ignored.append(verifier.ignored(folder, exc))
                continue
            except TransactionError as exc:
                result.failed.append(f"could not recover {folder.name}: {exc}")
                continue
            if message:
                result.done.append(message)
    udir = jr.undo_dir(root)
    if udir.is_dir():
        for folder in udir.iterdir():
            if folder.name.startswith(jr.TRASH_PREFIX):
                with contextlib.suppress(UntrustedJournalError):
                    verifier.screen(folder)
                    shutil.rmtree(folder, ignore_errors=True)
    return result


def recover(root: Path) -> list[str]:
    """:func:`recover_all`, as one human-readable line per transaction handled (failures
    included)."""
    result = recover_all(root)
    return result.done + result.failed
