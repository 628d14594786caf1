"""Extracting a tar stream (``git archive``) with nothing written outside the destination.

Python's ``data`` filter (PEP 706) does this, but only from 3.11.4: Debian 12's Python is
3.11.2, where ``extractall(filter=...)`` is a TypeError (``patchwright check`` crashed there).
Without the filter the same rules are applied here, member by member: regular files,
directories and links only; no absolute name, no ``..``; no path through a link that leads
out; no link whose target lies outside; permissions without set-id bits or group/other write.
"""

from __future__ import annotations

import os
import tarfile
from pathlib import Path
from typing import IO


class UnsafeArchive(ValueError):
    """A member would be written, or point, outside the destination."""


def extract(stream: IO[bytes], dest: Path) -> None:
    """Extract the tar ``stream`` into ``dest`` (read as a stream: no seeking)."""
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(dest, filter="data")
            return
        root = dest.resolve()
        for member in archive:
            _check(member, root)
            if not member.issym():
                member.mode &= 0o755  # no set-id bits, no group or other write
            archive.extract(member, root)


def _check(member: tarfile.TarInfo, root: Path) -> None:
    """Raise :class:`UnsafeArchive` unless ``member`` stays inside ``root``."""
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        raise UnsafeArchive(f"{member.name}: not a file, directory or link")
    name = member.name
    if os.path.isabs(name) or ".." in Path(name).parts:
        raise UnsafeArchive(f"{name}: outside the destination")
    target = (root / name).resolve()  # follows the links already extracted
    if not target.is_relative_to(root):
        raise UnsafeArchive(f"{name}: written through a link that leads outside")
    if member.issym() or member.islnk():
        link = member.linkname
        base = target.parent if member.issym() else root
        if os.path.isabs(link) or not (base / link).resolve().is_relative_to(root):
            raise UnsafeArchive(f"{name}: links to {link}, outside the destination")
