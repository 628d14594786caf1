"""Which host paths a sandboxed command needs to run the Python interpreters in play.

Bubblewrap hides ``/tmp``, ``/var/tmp``, ``/run`` and the real HOME, which is exactly where
users clone repositories and keep virtualenvs. A virtualenv is more than its ``bin/``: its
``python`` is a symlink to a base interpreter (uv, ``python -m venv``), its packages live
in ``lib/pythonX.Y/site-packages``, and an editable install's ``.pth`` file points at a
source tree somewhere else. Showing only what ``PATH`` names (``.venv/bin``) made mypy die
with ``ModuleNotFoundError`` inside the sandbox and the venv's pytest vanish.

So every virtualenv in play is shown whole, under the name it is used by (unresolved) and
under its real location:

- the repository's own ``.venv`` and ``venv``;
- ``VIRTUAL_ENV`` of the environment the command gets (after the caller's additions);
- the interpreter patchwright itself runs in (``sys.prefix``, ``sys.base_prefix``), whose
  tools (ruff, mypy, pytest) the gates run;

and with each one its base interpreter (where ``bin/python`` leads, ``home`` in
``pyvenv.cfg``), the directories its ``.pth`` files add, and the directories on the
running interpreter's ``sys.path``. Callers filter the result (secrets under HOME are never
shown) and bind what lies in a hidden area read-only.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

__all__ = ["interpreter_paths", "venv_dirs"]


def venv_dirs(root: Path, env: Mapping[str, str]) -> list[Path]:
    """The virtualenvs (or installations) in play, as absolute unresolved paths."""
    candidates = [root / ".venv", root / "venv"]
    if env.get("VIRTUAL_ENV"):
        candidates.append(Path(env["VIRTUAL_ENV"]))
    candidates += [Path(sys.prefix), Path(sys.base_prefix)]
    found: list[Path] = []
    for path in candidates:
        path = Path(os.path.abspath(path))
        if path not in found and (_is_venv(path) or path in (Path(sys.prefix),)):
            found.append(path)
    return found


def _is_venv(path: Path) -> bool:
    try:
        return (path / "pyvenv.cfg").is_file() or (path / "bin" / "python").exists()
    except OSError:  # a folder this user may not enter
        return False


def _base_interpreters(venv: Path) -> Iterator[Path]:
    """The prefix of the interpreter ``venv``'s python leads to, and ``pyvenv.cfg``'s home."""
    for name in ("python", "python3"):
        python = venv / "bin" / name
        with contextlib.suppress(OSError, RuntimeError):
            if python.exists():
                yield python.resolve().parent.parent
    with contextlib.suppress(OSError, UnicodeDecodeError):
        for line in (venv / "pyvenv.cfg").read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                yield Path(value.strip()).parent


def _pth_dirs(venv: Path) -> Iterator[Path]:
    """Absolute directories added by the ``.pth`` files of ``venv``'s site-packages
    (editable installs point at a source tree outside the venv)."""
    for site in venv.glob("lib/python*/site-packages"):
        for pth in site.glob("*.pth"):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                for line in pth.read_text(encoding="utf-8").splitlines():
                    line = line.strip()
                    if line.startswith("/") and not line.startswith("import"):
                        yield Path(line)


def _existing(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for path in paths:
        with contextlib.suppress(OSError):
            if path.exists() and path not in out:
                out.append(path)
    return out


def interpreter_paths(root: Path, env: Mapping[str, str]) -> list[Path]:
    """Every existing directory the interpreters in play need (see the module docstring):
    each venv unresolved and resolved, its base interpreter, its ``.pth`` directories, and
    the running interpreter's ``sys.path``."""
    wanted: list[Path] = []
    for venv in venv_dirs(root, env):
        wanted.append(venv)
        with contextlib.suppress(OSError, RuntimeError):
            wanted.append(venv.resolve())
        wanted += _base_interpreters(venv)
        wanted += _pth_dirs(venv)
    wanted += [Path(p) for p in sys.path if p and os.path.isabs(p)]
    return _existing(wanted)
