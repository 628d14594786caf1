"""Which repositories' own ``.patchwright/config.toml`` the user trusts, kept outside them.

A repository's config is data written by someone else; without trust only a safe list of
its settings applies (:mod:`patchwright.config`). ``patchwright trust`` records the
repository's resolved path with the SHA-256 of its config's bytes in
``$XDG_CONFIG_HOME/patchwright/trusted.toml`` (written atomically, mode 0600), so trust
covers exactly the file the user looked at: any change to it, and the trust no longer
applies until the user trusts it again. This module is a leaf: stdlib only.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

PROJECT_CONFIG = Path(".patchwright") / "config.toml"


class TrustError(Exception):
    """The trust store cannot be read or written; the message names the file."""


@dataclass(frozen=True)
class TrustEntry:
    """One trusted repository: its resolved path and the digest of the config trusted."""

    repo: str
    sha256: str
    trusted_at: str

    def status(self) -> str:
        """``current`` while the config is the one trusted; ``changed`` or ``missing`` not."""
        digest = config_digest(Path(self.repo))
        if digest is None:
            return "missing"
        return "current" if digest == self.sha256 else "changed"


def user_config_dir() -> Path:
    """``$XDG_CONFIG_HOME/patchwright`` (default ``~/.config/patchwright``)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "patchwright"


def store_path() -> Path:
    return user_config_dir() / "trusted.toml"


def repo_key(repo: Path) -> str:
    """The repository as the store names it: its resolved absolute path."""
    return str(repo.expanduser().resolve())


def digest_of(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def config_digest(repo: Path) -> str | None:
    """SHA-256 of the repository's ``.patchwright/config.toml`` bytes; None without one."""
    path = repo / PROJECT_CONFIG
    if not path.is_file():
        return None
    return digest_of(path.read_bytes())


def entries() -> dict[str, TrustEntry]:
    """Every trusted repository by its key; an absent store is an empty one."""
    path = store_path()
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise TrustError(f"{path}: unreadable ({exc}); fix or remove the file") from exc
    repos = data.get("repos")
    out: dict[str, TrustEntry] = {}
    for key, value in (repos if isinstance(repos, dict) else {}).items():
        if isinstance(value, dict) and isinstance(value.get("sha256"), str):
            out[key] = TrustEntry(key, value["sha256"], str(value.get("trusted_at", "")))
    return out


def is_trusted(repo: Path, digest: str) -> bool:
    """Whether the user trusts the config with ``digest`` in ``repo``. An unreadable store
    trusts nothing (the config's safe settings still apply)."""
    try:
        entry = entries().get(repo_key(repo))
    except TrustError:
        return False
    return entry is not None and entry.sha256 == digest


def record(repo: Path, digest: str | None = None) -> TrustEntry:
    """Trust ``repo``'s config as it is now (or the bytes whose digest the caller read)."""
    digest = digest or config_digest(repo)
    if digest is None:
        raise TrustError(f"{repo_key(repo)}: no {PROJECT_CONFIG} to trust")
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    entry = TrustEntry(repo_key(repo), digest, stamp)
    _write({**entries(), entry.repo: entry})
    return entry


def revoke(repo: Path) -> bool:
    """Forget ``repo``; False when it was not trusted."""
    current = entries()
    if current.pop(repo_key(repo), None) is None:
        return False
    _write(current)
    return True


def _write(repos: dict[str, TrustEntry]) -> None:
    """Replace the store atomically: a temporary file beside it, fsynced, then renamed."""
    path = store_path()
    lines = [
        "# Repositories whose .patchwright/config.toml you trust (patchwright trust).",
        "# Trust holds while the file's SHA-256 matches; revoke with patchwright trust --revoke.",
    ]
    for key in sorted(repos):
        entry = repos[key]
        # A JSON string of ASCII text is also a valid TOML basic string.
        lines += ["", f"[repos.{json.dumps(key)}]", f"sha256 = {json.dumps(entry.sha256)}",
                  f"trusted_at = {json.dumps(entry.trusted_at)}"]  # fmt: skip
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".trusted-", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise TrustError(f"{path}: cannot write ({exc})") from exc
