"""Offline wheels of distributions installed here, so a test can install them into a new
virtualenv with no network: each distribution's files (its RECORD) zipped back into a wheel
with its own tags, its requirements followed (markers evaluated, extras left out)."""

from __future__ import annotations

import zipfile
from importlib.metadata import Distribution, distribution
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _tag(dist: Distribution) -> str:
    wheel = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    return tags[0] if tags else "py3-none-any"


def _wheel(dist: Distribution, dest: Path) -> Path:
    name = canonicalize_name(dist.metadata["Name"]).replace("-", "_")
    path = dest / f"{name}-{dist.version}-{_tag(dist)}.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for file in dist.files or []:
            rel = file.as_posix()
            if rel.startswith("..") or "__pycache__" in rel or rel.endswith(".pyc"):
                continue
            source = Path(str(dist.locate_file(file)))
            if source.is_file():
                archive.write(source, rel)
    return path


def rewheel(names: list[str], dest: Path) -> list[Path]:
    """Wheels for ``names`` and everything they require here, written to ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    done: dict[str, Path] = {}
    todo = list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in done:
            continue
        dist = distribution(name)
        done[name] = _wheel(dist, dest)
        for text in dist.requires or []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return list(done.values())
