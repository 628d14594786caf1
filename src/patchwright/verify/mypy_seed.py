"""A head start for mypy's cache: the standard library's stubs checked once per mypy and
Python version, copied into each run's private cache.

Each gate run gives mypy a fresh cache in the sandbox's private TMPDIR (a repository's tools
may not write anywhere that outlives the run), so every call checked ``builtins``,
``typing`` and the rest of the standard library again: about a second a call, two calls an
attempt, whatever the size of the change. The seed is made once per machine, outside the
sandbox, by our own mypy on an empty module in an empty directory with an empty config —
nothing of any repository is read or run to make it — and is only ever copied *into* a run's
cache, never back, so no repository can change what another one's gate sees. mypy checks
each cached module's options and source against its own before using it: a seed made for
other settings costs a re-check, never a wrong answer.

The seed lives in ``$XDG_CACHE_HOME/patchwright/mypy-seed/<key>`` (``~/.cache`` by default);
``PATCHWRIGHT_MYPY_SEED=0`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

SEED_TIMEOUT = 120  # seconds for the one-off check of the standard library
_VERSION = re.compile(r"^\s*version(?:_info)?\s*=\s*(\d+)\.(\d+)", re.M)


def seed_cache(target: Path, mypy: list[str], python: str) -> bool:
    """Copy the seed into ``target`` (a run's empty cache directory), making the seed first
    when this machine has none. False when there is nothing to copy (turned off, ``target``
    already in use, the Python version unknown, or the seed could not be made or copied — an
    unwritable cache home, a full disk: the run then starts from an empty cache, as before).

    ``target`` lies in the sandbox's TMPDIR, where earlier commands of the run could write:
    a link planted there (to some other repository's folder, say) is refused, never followed
    — the copy is made by this process, outside the sandbox."""
    if os.environ.get("PATCHWRIGHT_MYPY_SEED", "1") == "0" or _planted(target):
        return False
    if any(target.iterdir()):
        return False
    version = python_version(python)
    if version is None:
        return False
    seed = _seed_dir(mypy, version)
    try:
        if not seed.is_dir() and not _make_seed(seed, mypy, version):
            return False
        shutil.copytree(seed, target, dirs_exist_ok=True, symlinks=False)
    except OSError:
        for part in target.iterdir():  # a half-copied database would be worse than none
            shutil.rmtree(part) if part.is_dir() else part.unlink()
        return False
    return True


def _planted(target: Path) -> bool:
    return any(p.is_symlink() for p in (target, target.parent)) or not target.is_dir()


def python_version(python: str) -> str | None:
    """``major.minor`` of the interpreter mypy checks for, without running it: ours, or the
    one a virtualenv's ``pyvenv.cfg`` names (a repository's own venv is not run outside the
    sandbox)."""
    if Path(python) == Path(sys.executable):
        return f"{sys.version_info.major}.{sys.version_info.minor}"
    cfg = Path(python).parent.parent / "pyvenv.cfg"
    try:
        found = _VERSION.search(cfg.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return f"{found[1]}.{found[2]}" if found else None


def _seed_dir(mypy: list[str], version: str) -> Path:
    parts: list[object] = [version, _mypy_release()]
    for arg in mypy:
        path = Path(arg)
        if path.is_file():
            stat = path.resolve().stat()
            parts.append([str(path.resolve()), stat.st_size, stat.st_mtime_ns])
        else:
            parts.append(arg)
    key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "patchwright" / "mypy-seed" / key


def _mypy_release() -> str:
    try:
        return metadata.version("mypy")
    except metadata.PackageNotFoundError:
        return "unknown"


def _make_seed(seed: Path, mypy: list[str], version: str) -> bool:
    """Check an empty module into a new cache and move it into place (another process
    making the same seed at the same time wins or loses the rename; both are fine)."""
    seed.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mypy-seed-", dir=seed.parent) as work:
        here = Path(work)
        (here / "seed.py").write_text("", encoding="utf-8")
        (here / "seed.ini").write_text("[mypy]\n", encoding="utf-8")
        cache = here / "cache"
        args = [*mypy, "--config-file", "seed.ini", "--python-version", version,
                "--no-site-packages", "--cache-dir", str(cache), "seed.py"]  # fmt: skip
        try:
            done = subprocess.run(args, cwd=here, capture_output=True, timeout=SEED_TIMEOUT,
                                  stdin=subprocess.DEVNULL, check=False)  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return False
        if done.returncode != 0 or not cache.is_dir():
            return False
        try:
            cache.rename(seed)
        except OSError:
            return seed.is_dir()
    return True
