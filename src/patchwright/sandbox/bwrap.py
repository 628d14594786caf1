"""The bubblewrap command line: what a sandboxed command can see, write and reach.

The view, in mount order:

- the host's root, read-only, with a fresh ``/dev`` and ``/proc``;
- ``/tmp``, ``/var/tmp`` and ``/run`` replaced by empty tmpfs, so nothing of the host's
  there (sockets included: docker.sock, database and agent sockets) is visible; the real
  HOME likewise, with toolchain directories (``~/.pyenv``...) shown read-only and secrets
  (``~/.ssh``, ``~/.aws``, ``~/.config``...) never;
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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from patchwright.sandbox.gitdirs import protected_paths
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


def _venv_prefixes(root: Path) -> list[Path]:
    venvs = [root / ".venv", root / "venv", Path(os.environ.get("VIRTUAL_ENV", "/nonexistent"))]
    found = []
    for venv in venvs:
        python = venv / "bin" / "python"
        if python.exists():
            found.append(python.resolve().parent.parent)
    return found


def _minimal(paths: list[Path]) -> list[Path]:
    """Drop paths inside another one of the list."""
    paths = sorted(set(paths), key=lambda p: len(p.parts))
    return [p for i, p in enumerate(paths) if not any(_is_within(p, q) for q in paths[:i])]


def _home_binds(home: Path, root: Path, path_dirs: Sequence[str]) -> list[Path]:
    """Toolchain directories under the real HOME to show read-only (interpreters, shims).

    Known toolchain roots, each ``PATH`` entry under HOME (just that directory), and the
    prefix of the repo's virtualenv interpreter; never ``.ssh``, ``.aws``, ``.config``...
    """
    wanted = [home / rel for rel in _TOOLCHAIN_DIRS]
    wanted += [Path(p) for p in path_dirs if p]
    wanted += _venv_prefixes(root)
    keep: list[Path] = []
    for path in wanted:
        try:
            parts = path.resolve().relative_to(home).parts
        except (ValueError, OSError):
            continue
        if parts and parts[0] not in _SECRET_HOME_ENTRIES:
            keep.append(home.joinpath(*parts))
    return _minimal(keep)


def _scratch_binds(areas: Sequence[Path], root: Path, path_dirs: Sequence[str]) -> list[Path]:
    """What stays visible (read-only) in the hidden ``/tmp``-like areas: ``PATH`` entries and
    the virtualenv interpreter living there, and the resolver configuration in ``/run``."""
    wanted = [Path(p) for p in path_dirs if p] + _venv_prefixes(root)
    wanted.append(Path("/etc/resolv.conf"))
    keep = []
    for path in wanted:
        try:
            real = path.resolve()
        except OSError:
            continue
        if real.exists() and any(_is_within(real, a) and real != a for a in areas):
            keep.append(real)
    return _minimal(keep)


def bwrap_argv(
    argv: Sequence[str],
    *,
    root: Path,
    private: Path,
    cwd: Path,
    allow_net: bool,
    path_dirs: Sequence[str] = (),
) -> Wrapped:
    """The bubblewrap command line for ``argv`` (see the module docstring)."""
    cmd = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    areas = [a for a in SCRATCH_AREAS if a.is_dir() and not a.is_symlink()]
    areas = [a for a in areas if not _is_within(a, root)]
    for area in areas:
        cmd += ["--tmpfs", str(area)]
    hidden = list(areas)
    shown = _scratch_binds(areas, root, path_dirs)
    home = Path(os.path.expanduser("~")).resolve()
    if home != Path("/") and home.is_dir() and not _is_within(home, root):
        cmd += ["--tmpfs", str(home)]
        hidden.append(home)
        shown += _home_binds(home, root, path_dirs)
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
