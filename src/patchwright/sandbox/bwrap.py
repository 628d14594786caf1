"""The bubblewrap command line: what a sandboxed command can see, write and reach.

The view, in mount order:

- the host's root, read-only, with a fresh ``/dev`` and ``/proc``;
- ``/tmp``, ``/var/tmp`` and ``/run`` replaced by empty tmpfs, so nothing of the host's
  there (sockets included: docker.sock, database and agent sockets) is visible; the real
  HOME likewise, with toolchain directories (``~/.pyenv``...) shown read-only and secrets
  (``~/.ssh``, ``~/.aws``, ``~/.config``...) never;
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
- every tmpfs remounted read-only, so a write there fails loudly (``read-only-path``)
  instead of filling memory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox.gitdirs import protected_paths
from patchwright.sandbox.interpreters import interpreter_paths
from patchwright.sandbox.sockets import host_sockets

SCRATCH_AREAS = (Path("/tmp"), Path("/var/tmp"), Path("/run"), Path("/var/run"))
_SECRET_HOME_ENTRIES = frozenset(
    {".ssh", ".aws", ".gnupg", ".config", ".docker", ".kube", ".azure", ".netrc", ".pypirc"}
)
_TOOLCHAIN_DIRS = (
    ".pyenv",
    ".local/bin",
    ".local/share/uv",
    ".local/lib",
    ".cargo/bin",
    ".rustup",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    "go",
)
_NO_DECOY = (Path("/proc"), Path("/sys"), Path("/dev"))


@dataclass(frozen=True)
class Wrapped:
    """The command line, the host areas it hides, and what inside them is still shown."""

    argv: list[str]
    hidden: list[Path]
    exposed: list[Path]

    def is_hidden(self, path: Path) -> bool:
        """True when ``path`` (absolute, host view) is invisible inside the sandbox."""
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
    """Toolchain directories under the real HOME to show read-only (interpreters, shims).

    Known toolchain roots and each wanted path under HOME (``PATH`` entries, the
    interpreters in play), by the name it is used by and by its real location; never
    ``.ssh``, ``.aws``, ``.config``..., never the repository or a folder holding it.
    """
    keep: list[Path] = []
    for path in [*(home / rel for rel in _TOOLCHAIN_DIRS), *wanted]:
        for name in _both_names(path):
            try:
                parts = name.relative_to(home).parts
            except ValueError:
                continue
            if parts and parts[0] not in _SECRET_HOME_ENTRIES and not _is_within(root, name):
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


def bwrap_argv(
    argv: Sequence[str],
    *,
    root: Path,
    private: Path,
    cwd: Path,
    allow_net: bool,
    env: Mapping[str, str] | None = None,
) -> Wrapped:
    """The bubblewrap command line for ``argv`` (see the module docstring). ``env`` is the
    environment the command gets: its ``PATH`` entries and ``VIRTUAL_ENV`` stay visible."""
    env = env if env is not None else {}
    wanted = [Path(p) for p in env.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    wanted += interpreter_paths(Path(root), env)
    cmd = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    areas = [a for a in SCRATCH_AREAS if a.is_dir() and not a.is_symlink()]
    areas = [a for a in areas if not _is_within(a, root)]
    for area in areas:
        cmd += ["--tmpfs", str(area)]
    hidden = list(areas)
    shown = _scratch_binds(areas, root, wanted)
    home = Path(os.path.expanduser("~")).resolve()
    if home != Path("/") and home.is_dir() and not _is_within(home, root):
        cmd += ["--tmpfs", str(home)]
        hidden.append(home)
        shown += _home_binds(home, root, wanted)
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
    for area in hidden:
        cmd += ["--remount-ro", str(area)]
    cmd += ["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if not allow_net:
        cmd.append("--unshare-net")
    cmd += ["--chdir", str(cwd), "--", *argv]
    return Wrapped(cmd, hidden, exposed)
