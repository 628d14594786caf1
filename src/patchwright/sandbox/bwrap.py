"""The bubblewrap command line: what a sandboxed command can see, write and reach.

The view, in mount order:

- the host's root, read-only, with a fresh ``/dev`` and ``/proc``;
- ``/tmp``, ``/var/tmp`` and ``/run`` replaced by empty tmpfs, so nothing of the host's
  there (sockets included: docker.sock, database and agent sockets) is visible; the real
  HOME likewise, with toolchain directories (``toolchains``: ``~/.rustup``, ``~/.cargo/bin``,
  ``~/go``, ``~/.nvm``, ``~/.pyenv``...) shown read-only and secrets (``~/.ssh``, ``~/.aws``,
  ``~/.config``, registry tokens, shell histories...) never;
- in those hidden areas, read-only: the command's ``PATH`` entries and every Python
  interpreter in play, whole (``interpreters``: the repository's ``.venv``, ``VIRTUAL_ENV``,
  the one patchwright runs in, their base interpreters and editable-install sources), by
  the name they are used by and by their real location;
- the private directory (HOME, TMPDIR, ``/dev/shm``) and the repository, writable;
- the repository's git directories and ``.patchwright/`` bound read-only over the
  writable repository, so a command cannot plant a hook or ``core.fsmonitor`` that a later
  git call outside the sandbox would run;
- ``/dev/null`` mounted over every host unix socket found (``sockets``), so that a connect
  is refused — and reported as ``blocked_by: network`` — instead of reaching a daemon;
- every secret (``toolchains.secret_paths``) that something shown would still reveal —
  cargo's ``credentials.toml`` in a cargo home outside HOME, ``~/.ssh`` under a shown
  folder — covered: a folder by an empty read-only tmpfs, a file by an empty file no one may
  read;
- every tmpfs remounted read-only, so a write there fails loudly (``read-only-path``)
  instead of filling memory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.sandbox.gitdirs import protected_paths
from patchwright.sandbox.interpreters import interpreter_paths
from patchwright.sandbox.sockets import host_sockets
from patchwright.sandbox.toolchains import (
    HOME_TOOLCHAINS,
    ToolchainView,
    is_secret,
    secret_paths,
)

SCRATCH_AREAS = (Path("/tmp"), Path("/var/tmp"), Path("/run"), Path("/var/run"))
_NO_DECOY = (Path("/proc"), Path("/sys"), Path("/dev"))
MASK_FILE = "masked"  # in the private directory: an empty file no one may read


@dataclass(frozen=True)
class Wrapped:
    """The command line, the host areas it hides, and what inside them is still shown."""

    argv: list[str]
    hidden: list[Path]
    exposed: list[Path]
    masked: list[Path] = field(default_factory=list)

    def is_hidden(self, path: Path) -> bool:
        """True when ``path`` (absolute, host view) is invisible inside the sandbox."""
        if any(_is_within(path, m) for m in self.masked):
            return True
        return any(_is_within(path, h) for h in self.hidden) and not any(
            _is_within(path, e) for e in self.exposed
        )


def _is_within(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


def _minimal(paths: list[Path]) -> list[Path]:
    """Drop paths inside another one of the list."""
    paths = sorted(set(paths), key=lambda p: len(p.parts))
    return [p for i, p in enumerate(paths) if not any(_is_within(p, q) for q in paths[:i])]


def _both_names(path: Path) -> list[Path]:
    """``path`` as given (absolute) and where its symlinks lead, when that exists."""
    try:
        real = path.resolve()
        if not real.exists():
            return []
    except (OSError, RuntimeError):  # a loop, or a folder this user may not enter
        return []
    given = Path(os.path.abspath(path))
    return [given, real] if given != real else [real]


def _home_binds(home: Path, root: Path, wanted: Sequence[Path]) -> list[Path]:
    """Folders under the real HOME to show read-only (toolchains, interpreters, shims).

    Each wanted path under HOME (the toolchains of ``toolchains.HOME_TOOLCHAINS``, ``PATH``
    entries, the interpreters in play), by the name it is used by and by its real location;
    never a secret or a folder inside one (``~/.ssh``, ``~/.config``...), never the
    repository or a folder holding it.
    """
    keep: list[Path] = []
    for path in [*(home / rel for rel in HOME_TOOLCHAINS), *wanted]:
        for name in _both_names(path):
            try:
                parts = name.relative_to(home).parts
            except ValueError:
                continue
            if parts and not is_secret(name, home) and not _is_within(root, name):
                keep.append(name)
    return _minimal(keep)


def _scratch_binds(areas: Sequence[Path], root: Path, wanted: Sequence[Path]) -> list[Path]:
    """What stays visible (read-only) in the hidden ``/tmp``-like areas: ``PATH`` entries and
    the interpreters in play living there, and the resolver configuration in ``/run``."""
    keep = []
    for path in [*wanted, Path("/etc/resolv.conf")]:
        for name in _both_names(path):
            inside = any(_is_within(name, a) and name != a for a in areas)
            if inside and not _is_within(root, name):
                keep.append(name)
    return _minimal(keep)


def _masks(
    secrets: Sequence[Path], hidden: Sequence[Path], exposed: Sequence[Path], private: Path
) -> tuple[list[str], list[Path]]:
    """The mounts that cover each secret the view would still show (see the module
    docstring), and the paths they cover."""
    args: list[str] = []
    covered: list[Path] = []
    for secret in secrets:
        try:
            real = secret.resolve()
            if not real.exists() or any(_is_within(real, c) for c in covered):
                continue
            folder = real.is_dir()
        except (OSError, RuntimeError):
            continue
        inside = any(_is_within(real, h) for h in hidden)
        if inside and not any(_is_within(real, e) for e in exposed):
            continue  # already invisible
        if folder:
            args += ["--tmpfs", str(real)]
        else:
            args += ["--ro-bind", str(private / MASK_FILE), str(real)]
        covered.append(real)
    return args, covered


def bwrap_argv(
    argv: Sequence[str],
    *,
    root: Path,
    private: Path,
    cwd: Path,
    allow_net: bool,
    env: Mapping[str, str] | None = None,
    toolchains: ToolchainView | None = None,
) -> Wrapped:
    """The bubblewrap command line for ``argv`` (see the module docstring). ``env`` is the
    environment the command gets: its ``PATH`` entries and ``VIRTUAL_ENV`` stay visible;
    ``toolchains`` says which toolchain folders to show and which secrets to keep covered."""
    env = env if env is not None else {}
    home = Path(os.path.expanduser("~")).resolve()
    view = toolchains or ToolchainView(shown=(), secrets=tuple(secret_paths(home)))
    wanted = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    wanted += interpreter_paths(Path(root), env)
    wanted += view.shown
    cmd = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    areas = [a for a in SCRATCH_AREAS if a.is_dir() and not a.is_symlink()]
    areas = [a for a in areas if not _is_within(a, root)]
    for area in areas:
        cmd += ["--tmpfs", str(area)]
    hidden = list(areas)
    shown = _scratch_binds(areas, root, [w for w in wanted if not is_secret(w, home)])
    if home != Path("/") and home.is_dir() and not _is_within(home, root):
        cmd += ["--tmpfs", str(home)]
        hidden.append(home)
        shown = _minimal([*shown, *_home_binds(home, root, wanted)])
    for path in shown:
        cmd += ["--ro-bind-try", str(path), str(path)]
    cmd += ["--bind", str(private), str(private)]
    if (private / "shm").is_dir():
        cmd += ["--bind", str(private / "shm"), "/dev/shm"]
    cmd += ["--bind", str(root), str(root)]
    exposed = [*shown, private, root]
    for path in protected_paths(root):
        if _is_within(path, root) or not _is_within(path, home):
            cmd += ["--ro-bind", str(path), str(path)]
            exposed.append(path)
    for sock in host_sockets():
        if not any(_is_within(sock, p) for p in _NO_DECOY):
            cmd += ["--ro-bind", "/dev/null", str(sock)]
    secrets = [s for s in view.secrets if not _is_within(s, root)]
    mask_args, masked = _masks(secrets, hidden, exposed, private)
    if mask_args:
        _mask_file(private)
    cmd += mask_args
    for area in [*hidden, *(m for m in masked if m.is_dir())]:
        cmd += ["--remount-ro", str(area)]
    cmd += ["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if not allow_net:
        cmd.append("--unshare-net")
    cmd += ["--chdir", str(cwd), "--", *argv]
    return Wrapped(cmd, hidden, exposed, masked)


def _mask_file(private: Path) -> None:
    """The empty file, readable by no one, that covers a secret file."""
    path = private / MASK_FILE
    if not path.exists():
        path.touch()
    path.chmod(0)
