"""Toolchains as users install them, inside the sandbox: what is shown, which variables point
at it, and which secrets stay hidden.

Every command gets a private HOME, so a toolchain that finds itself through ``$HOME``
(rustup's ``~/.rustup``, cargo's ``~/.cargo``, Go's ``~/go``) would look in an empty folder:
``cargo`` said "rustup could not choose a version of cargo to run", and a Go module with
dependencies could not build offline. This module says, for one command:

- **variables** that lead each toolchain back to the real installation: ``RUSTUP_HOME``
  (the real ``~/.rustup``); ``CARGO_HOME`` (a scratch folder in the private directory that
  links the real ``bin``, ``registry`` and ``git`` and holds a copy of ``config.toml``
  without tokens — never ``credentials.toml``); ``GOPATH`` and ``GOMODCACHE`` (the real
  module cache, read-only) with ``GOCACHE`` in the private directory (the build cache must
  be writable); ``NODE_OPTIONS=--disable-wasm-trap-handler`` under an address-space limit
  (``node_options``); with the network off ``CARGO_NET_OFFLINE=true``, ``GOPROXY=off``,
  ``GOTOOLCHAIN=local`` and ``NPM_CONFIG_OFFLINE=true`` so a missing dependency fails at
  once, saying so, instead of timing out; ``GOFLAGS=-buildvcs=false`` unless set (Go 1.18+);
- **shown** host directories (bound read-only under bubblewrap): the toolchain roots that
  exist (``~/.rustup``, ``~/.cargo/bin``/``registry``/``git``, ``~/go``, ``~/.nvm``, volta,
  fnm, pnpm, ``~/.pyenv``, ``~/.local/bin``...) and the folders the user's cargo config
  names as a directory or local-registry source;
- **secrets**: paths never shown, and covered (masked) wherever something that holds them is
  shown — SSH, cloud and cluster keys, registry tokens, keyrings, shell histories
  (``SECRET_HOME_PATHS``), and each toolchain's own credential files (cargo's
  ``credentials``/``credentials.toml``).

It imports nothing of patchwright (the sandbox is a leaf); ``bwrap`` turns the view into
mounts, ``runner`` into the command's environment.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "HOME_TOOLCHAINS",
    "SECRET_HOME_ENTRIES",
    "SECRET_HOME_PATHS",
    "ToolchainView",
    "is_secret",
    "sanitized_cargo_config",
    "secret_paths",
    "toolchain_view",
]

HOME_TOOLCHAINS = (
    # Python
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".local/share/mise",
    ".asdf",
    # Rust (cargo's home is shown in parts: bin, registry, git — never its credentials)
    ".rustup",
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    # Go (the module cache lives in GOPATH; golang.org/dl puts SDKs in ~/sdk)
    "go",
    "sdk",
    ".goenv",
    # JavaScript
    ".nvm",
    ".volta",
    ".fnm",
    ".local/share/fnm",
    ".local/share/pnpm",
    ".npm-global",
    ".yarn/berry",
    ".cache/node/corepack",
    ".bun",
    ".deno",
    # JVM
    ".sdkman/candidates",
)
"""Toolchain folders under HOME shown read-only when they exist (relative to HOME)."""

SECRET_HOME_ENTRIES = frozenset(
    {".ssh", ".aws", ".azure", ".gnupg", ".config", ".docker", ".kube", ".netrc", ".pypirc",
     ".npmrc", ".git-credentials", ".password-store", ".pki", ".mozilla"}
)  # fmt: skip
"""Top-level HOME entries that nothing under them is ever shown from (even a PATH entry)."""

SECRET_HOME_PATHS = (
    # keys and cloud credentials
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".docker",
    ".kube",
    ".config",  # gh, gcloud, hub, git credentials, browsers...
    ".oci",
    ".vault-token",
    ".terraform.d",
    ".s3cfg",
    ".boto",
    ".pgpass",
    ".my.cnf",
    ".password-store",
    ".pki",
    ".mozilla",
    ".local/share/keyrings",
    # package registries and git
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    # shell and REPL histories
    ".bash_history",
    ".zsh_history",
    ".sh_history",
    ".history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
    ".viminfo",
    ".local/share/fish/fish_history",
)
"""Paths under HOME (relative) that a sandboxed command never reads: not shown, and masked
when a folder holding them is shown."""

_CARGO_SECRETS = ("credentials", "credentials.toml")
_CARGO_CONFIGS = ("config.toml", "config")
_CARGO_SHOWN = ("bin", "registry", "git")
# a TOML key that carries a credential, or a value that is a URL with a password in it
_SECRET_KEY = re.compile(r"^\s*\"?[\w.-]*(token|secret|passw|credential)[\w.-]*\"?\s*=", re.I)
_SECRET_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:\"']*:[^/@\s\"']+@", re.I)


@dataclass(frozen=True)
class ToolchainView:
    """What one command gets of the host's toolchains (see the module docstring)."""

    env: dict[str, str] = field(default_factory=dict)
    shown: tuple[Path, ...] = ()  # host folders to show read-only (absolute)
    secrets: tuple[Path, ...] = ()  # host paths to keep unreadable, wherever they are
    notes: tuple[str, ...] = ()


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def _dir(value: str | None) -> Path | None:
    if not value or not os.path.isabs(value):
        return None
    path = Path(value)
    with contextlib.suppress(OSError):
        if path.is_dir():
            return path
    return None


def _existing(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        with contextlib.suppress(OSError):
            if path.exists() and path not in out:
                out.append(path)
    return out


def secret_paths(home: Path, cargo_home: Path | None = None) -> list[Path]:
    """Every secret path (absolute): ``SECRET_HOME_PATHS`` under ``home`` and cargo's credential
    files in its real home (which may lie outside HOME)."""
    found = [home / rel for rel in SECRET_HOME_PATHS]
    if cargo_home is not None:
        found += [cargo_home / name for name in _CARGO_SECRETS]
    return list(dict.fromkeys(found))


_SECRET_PARTS = tuple(Path(rel).parts for rel in SECRET_HOME_PATHS)


def is_secret(path: Path, home: Path) -> bool:
    """True when ``path`` is, or lies inside, a secret under ``home`` (a top-level secret
    entry such as ``~/.config``, or one of ``SECRET_HOME_PATHS``)."""
    try:
        parts = path.relative_to(home).parts
    except ValueError:
        return False
    if parts and parts[0] in SECRET_HOME_ENTRIES:
        return True
    return any(parts[: len(secret)] == secret for secret in _SECRET_PARTS)


def sanitized_cargo_config(text: str) -> str:
    """cargo's ``config.toml`` without the lines that carry a credential: any key naming a
    token, secret, password or credential (``token``, ``credential-provider``, ...) and any
    value holding a ``user:password@`` URL."""
    kept = [
        line
        for line in text.splitlines()
        if not _SECRET_KEY.match(line) and not _SECRET_URL.search(line)
    ]
    return "\n".join(kept) + ("\n" if kept else "")


def _cargo_sources(text: str) -> list[Path]:
    """The folders a cargo config names as ``directory`` or ``local-registry`` sources."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    sources = data.get("source")
    found: list[Path] = []
    if isinstance(sources, dict):
        for entry in sources.values():
            if not isinstance(entry, dict):
                continue
            for key in ("directory", "local-registry"):
                value = entry.get(key)
                if isinstance(value, str) and os.path.isabs(value):
                    found.append(Path(value))
    return found


def _link(link: Path, target: Path) -> None:
    """``link`` -> ``target``, replacing what was there; left out when ``target`` is gone."""
    with contextlib.suppress(OSError):
        if link.is_symlink() and os.readlink(link) == str(target):
            return
        if link.is_symlink() or link.is_file():
            link.unlink()
        if target.exists():
            link.symlink_to(target)


def _cargo(real: Path, scratch: Path) -> tuple[list[Path], str | None]:
    """Fill the scratch ``CARGO_HOME``: links to the real ``bin``, ``registry`` and ``git``, and
    a token-free copy of its config. Returns the folders to show and a note, if any."""
    scratch.mkdir(parents=True, exist_ok=True)
    shown = [real / name for name in _CARGO_SHOWN]
    for name in _CARGO_SHOWN:
        _link(scratch / name, real / name)
    note = None
    for name in _CARGO_CONFIGS:
        config = real / name
        copy = scratch / name
        try:
            text = config.read_text(encoding="utf-8") if config.is_file() else None
        except (OSError, UnicodeDecodeError):
            text = None
        if text is None:
            copy.unlink(missing_ok=True)
            continue
        clean = sanitized_cargo_config(text)
        if clean != text:
            note = f"{config}: lines with credentials left out of the sandbox's copy"
        with contextlib.suppress(OSError):
            if not copy.is_file() or copy.read_text(encoding="utf-8") != clean:
                copy.write_text(clean, encoding="utf-8")
        shown += _cargo_sources(clean)
    return shown, note


def _first_gopath(value: str | None) -> Path | None:
    for entry in (value or "").split(os.pathsep):
        if path := _dir(entry):
            return path
    return None


@functools.cache
def _wasm_flag(node: str) -> bool:
    """This node knows ``--disable-wasm-trap-handler`` (20.15, 22.2 and later)."""
    try:
        done = subprocess.run(
            [node, "--disable-wasm-trap-handler", "-e", "0"], capture_output=True, timeout=15
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.cache
def _go_stamps(go: str | None) -> bool:
    """This go stamps binaries with version control information (1.18 and later), so
    ``-buildvcs=false`` is a flag it knows."""
    if go is None:
        return False
    try:
        done = subprocess.run([go, "version"], capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.SubprocessError):
        return False
    m = re.search(r"go(\d+)\.(\d+)", done.stdout)
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (1, 18)


def node_options(env: Mapping[str, str]) -> str:
    """``NODE_OPTIONS`` for a command whose address space is limited: V8 reserves about 10 GiB
    of address space for each WebAssembly memory (its bounds checks trap on guard pages), so
    under ``RLIMIT_AS`` every tool that loads wasm — vite, vitest, es-module-lexer — died
    with "Cannot allocate Wasm memory"; with the trap handler off V8 checks bounds inline."""
    node = shutil.which("node", path=env.get("PATH") or os.defpath)
    return "--disable-wasm-trap-handler" if node and _wasm_flag(node) else ""


def toolchain_view(
    home: Path,
    env: Mapping[str, str],
    private: Path,
    *,
    allow_net: bool,
    address_limited: bool = False,
) -> ToolchainView:
    """The toolchains of ``home`` (the real HOME) for a command whose environment before this
    is ``env`` (the user's variables and the caller's additions) and whose private directory
    is ``private`` (see the module docstring); ``address_limited``: the command runs under an
    address-space limit (``node_options``)."""
    out: dict[str, str] = {}
    shown: list[Path] = [home / rel for rel in HOME_TOOLCHAINS]
    notes: list[str] = []
    rustup = _dir(env.get("RUSTUP_HOME")) or _dir(str(home / ".rustup"))
    if rustup is not None:
        out["RUSTUP_HOME"] = str(rustup)
        shown.append(rustup)
    cargo = _dir(env.get("CARGO_HOME")) or _dir(str(home / ".cargo"))
    if cargo is not None:
        scratch = private / "cargo-home"
        cargo_shown, note = _cargo(cargo, scratch)
        shown += cargo_shown
        notes += [note] if note else []
        out["CARGO_HOME"] = str(scratch)
    gopath = _first_gopath(env.get("GOPATH")) or _dir(str(home / "go"))
    if gopath is not None:
        out["GOPATH"] = env.get("GOPATH") or str(gopath)
        shown += [p for e in out["GOPATH"].split(os.pathsep) if (p := _dir(e))]
        modcache = _dir(env.get("GOMODCACHE")) or gopath / "pkg" / "mod"
        out["GOMODCACHE"] = str(modcache)
        shown.append(modcache)
    if goroot := _dir(env.get("GOROOT")):
        shown.append(goroot)
    out["GOCACHE"] = str(private / "go-build")  # the build cache must be writable
    if "GOFLAGS" not in env and _go_stamps(shutil.which("go", path=env.get("PATH") or os.defpath)):
        out["GOFLAGS"] = "-buildvcs=false"  # no git calls to stamp binaries
    for name in ("NVM_DIR", "VOLTA_HOME", "FNM_DIR", "PNPM_HOME", "PYENV_ROOT", "BUN_INSTALL"):
        if path := _dir(env.get(name)):
            shown.append(path)
    if address_limited and (flag := node_options(env)):
        out["NODE_OPTIONS"] = flag
    out["NPM_CONFIG_UPDATE_NOTIFIER"] = "false"
    out["NPM_CONFIG_FUND"] = "false"
    out["NPM_CONFIG_AUDIT"] = "false"
    if not allow_net:
        out["CARGO_NET_OFFLINE"] = "true"
        out["GOPROXY"] = "off"
        out["GOTOOLCHAIN"] = "local"
        out["NPM_CONFIG_OFFLINE"] = "true"
    visible = [p for p in _existing(shown) if not is_secret(p, home)]
    secrets = _existing(secret_paths(home, cargo))
    return ToolchainView(out, tuple(visible), tuple(secrets), tuple(notes))
