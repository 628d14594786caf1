"""The per-user secret that signs patchwright's journals and undo entries.

A repository's ``.patchwright/`` folder is untrusted input: a cloned repository can ship a
journal, and a command can plant one, and recovery runs at every start. So every manifest
patchwright writes carries an HMAC-SHA256 made with a key that lives *outside* any
repository, readable by this user only, and recovery and undo act on a manifest only when
its MAC checks out with that key.

The key is 32 random bytes, stored as hex in ``journal.key`` in the first of
``$PATCHWRIGHT_STATE_DIR``, ``$XDG_STATE_HOME/patchwright``, ``~/.local/state/patchwright``.
It is created on first write — mode 0600 in a 0700 folder, published with ``link`` so two
processes racing to create it end up with the same key. The bubblewrap sandbox hides the
real HOME, so a sandboxed command cannot read it (at the default place).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from patchwright.workspace.atomic import fsync_dir
from patchwright.workspace.errors import JournalKeyError

__all__ = ["KEY_NAME", "key_path", "load_key", "sign", "verify"]

KEY_NAME = "journal.key"
ENV_VAR = "PATCHWRIGHT_STATE_DIR"
_KEY_BYTES = 32
_DOMAIN = b"patchwright journal manifest v1\x00"  # a MAC made for nothing else


def state_home() -> Path:
    """The user's patchwright state folder (never inside a repository by default)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "patchwright"
    return Path.home() / ".local" / "state" / "patchwright"


def key_path() -> Path:
    return state_home() / KEY_NAME


def load_key(*, create: bool) -> bytes | None:
    """This user's journal key; ``None`` when there is none yet and ``create`` is false.

    Raises :class:`JournalKeyError` when the key file is damaged, not this user's, or
    readable by others (anyone who can read it can forge journals), or cannot be created.
    """
    path = key_path()
    try:
        return _read(path)
    except FileNotFoundError:
        if not create:
            return None
    try:
        _create(path)
        return _read(path)
    except OSError as exc:
        raise JournalKeyError(
            f"cannot create the journal key {path} ({exc}); patchwright signs its crash "
            f"journals with it. Make that folder writable or set {ENV_VAR} to one that is"
        ) from exc


def _read(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        text = os.read(fd, 4 * _KEY_BYTES)
    finally:
        os.close(fd)
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise JournalKeyError(
            f"the journal key {path} is not private (owner uid {info.st_uid}, mode "
            f"{info.st_mode & 0o777:o}): whoever can read it can forge journals. Make it "
            "yours with mode 600 (chmod 600), or delete it to start a new one"
        )
    try:
        key = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != _KEY_BYTES:
        raise JournalKeyError(f"the journal key {path} is damaged; delete it to start a new one")
    return key


def _create(path: Path) -> None:
    """Write a fresh key to a private temp file, then ``link`` it into place: the first
    process to get there wins and every other one reads the winner's key."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{KEY_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(tmp, flags, 0o600)
    try:
        os.write(fd, (secrets.token_bytes(_KEY_BYTES).hex() + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    except OSError:  # a file system without hard links: last writer wins
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    with contextlib.suppress(OSError):
        fsync_dir(path.parent)


def sign(key: bytes, body: bytes) -> str:
    """The hex HMAC-SHA256 of a manifest ``body``."""
    return hmac.new(key, _DOMAIN + body, hashlib.sha256).hexdigest()


def verify(key: bytes, body: bytes, mac: str) -> bool:
    """True when ``mac`` is :func:`sign`'s answer for ``body`` (constant time)."""
    return hmac.compare_digest(sign(key, body), mac)
