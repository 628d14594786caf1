"""Finding a Python interpreter of a wanted version: pyenv's, uv's or one on ``PATH``; the
nearest available one when the exact version is missing (the caller records that)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

_VERSION = re.compile(r"(\d+)\.(\d+)")


@dataclass(frozen=True)
class Found:
    """An interpreter, its ``major.minor`` and whether that is the version asked for."""

    path: Path
    version: str
    exact: bool

    @property
    def note(self) -> str | None:
        return None if self.exact else f"Python {self.version} used: the wanted one is missing"


def _minor(version: str) -> tuple[int, int] | None:
    m = _VERSION.match(version)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _candidates() -> dict[tuple[int, int], Path]:
    """Interpreters found here by ``(major, minor)``: pyenv's versions, uv's managed ones,
    then ``pythonX.Y`` on ``PATH``."""
    found: dict[tuple[int, int], Path] = {}
    roots = [Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions",
             Path.home() / ".local" / "share" / "uv" / "python"]  # fmt: skip
    for root in roots:
        if not root.is_dir():
            continue
        for entry in sorted(root.iterdir()):
            version = _minor(entry.name.removeprefix("cpython-"))
            for name in ("bin/python3", "bin/python"):
                exe = entry / name
                if version and version not in found and exe.is_file():
                    found[version] = exe
                    break
    for major, minor in [(3, m) for m in range(6, 15)] + [(2, 7)]:
        on_path = shutil.which(f"python{major}.{minor}")
        if on_path and (major, minor) not in found:
            found[(major, minor)] = Path(on_path)
    return found


def find_python(version: str) -> Found | None:
    """The interpreter for ``version`` (``"3.9"``), or the nearest one of the same major
    version (newer preferred on a tie); None when no Python of that major version exists."""
    wanted = _minor(version)
    if wanted is None:
        return None
    found = _candidates()
    if wanted in found:
        return Found(found[wanted], f"{wanted[0]}.{wanted[1]}", True)
    same = [v for v in found if v[0] == wanted[0]]
    if not same:
        return None
    best = min(same, key=lambda v: (abs(v[1] - wanted[1]), -v[1]))
    return Found(found[best], f"{best[0]}.{best[1]}", False)


def uv_command() -> list[str] | None:
    """How to run uv here: ``uv`` on PATH, the one in ``~/.local/bin``, or ``python3 -m uv``."""
    exe = shutil.which("uv") or str(Path.home() / ".local" / "bin" / "uv")
    if Path(exe).is_file():
        return [exe]
    python = shutil.which("python3")
    if python:
        probe = subprocess.run([python, "-m", "uv", "--version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return [python, "-m", "uv"]
    return None
