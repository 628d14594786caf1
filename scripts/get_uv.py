"""Fetch uv's standalone binary from PyPI into a folder, with nothing but the standard library.

For a machine with no uv where pip may not install one: Debian 12, Ubuntu 23.04+ and
Homebrew's Python refuse ``pip install --user`` (PEP 668, "externally-managed-environment"),
and a minimal system has no pip or venv at all. uv's wheel holds a static binary; this takes
it out of the wheel for this machine (its hash checked against PyPI's) and writes it as
``DEST/uv``. Nothing else on the system changes.

Usage: python3 scripts/get_uv.py DEST   (prints the binary's path)
"""

from __future__ import annotations

import hashlib
import io
import json
import platform
import stat
import sys
import urllib.request
import zipfile
from pathlib import Path

VERSION = "0.13.9"  # the uv this project is developed and tested with
INDEX = "https://pypi.org/simple/uv/"  # PEP 691's JSON form: every file, with its sha256
_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def wanted() -> tuple[str, str]:
    """(platform family, architecture) of uv's wheel for this machine."""
    arch = _ARCH.get(platform.machine().lower())
    if arch is None:
        raise SystemExit(f"no uv wheel for this processor ({platform.machine()}): install uv")
    if sys.platform == "darwin":
        return "macosx", "arm64" if arch == "aarch64" else "x86_64"
    if sys.platform.startswith("linux"):
        musl = platform.libc_ver()[0] != "glibc"
        return ("musllinux" if musl else "manylinux"), arch
    raise SystemExit(f"no uv wheel chosen for {sys.platform}: install uv (docs.astral.sh/uv)")


def choose(files: list[dict[str, object]], family: str, arch: str) -> dict[str, object]:
    """The wheel of :data:`VERSION` among ``files`` (the index's) for ``family`` and ``arch``."""
    for entry in files:
        name = str(entry["filename"])
        ours = name.startswith(f"uv-{VERSION}-") and name.endswith(".whl")
        if ours and family in name and arch in name:
            return entry
    raise SystemExit(f"uv {VERSION} has no {family} {arch} wheel on PyPI: install uv")


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    dest = Path(sys.argv[1]).expanduser()
    family, arch = wanted()
    ask = urllib.request.Request(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(ask, timeout=60) as answer:
        index = json.load(answer)
    wheel = choose(index["files"], family, arch)
    with urllib.request.urlopen(str(wheel["url"]), timeout=300) as answer:
        data = answer.read()
    hashes = wheel["hashes"]
    assert isinstance(hashes, dict)
    if hashlib.sha256(data).hexdigest() != hashes["sha256"]:
        raise SystemExit(f"{wheel['filename']}: the download does not match PyPI's sha256")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        member = next(n for n in archive.namelist() if n.endswith(".data/scripts/uv"))
        binary = archive.read(member)
    dest.mkdir(parents=True, exist_ok=True)
    target = dest / "uv"
    partial = target.with_suffix(".partial")
    partial.write_bytes(binary)
    partial.chmod(partial.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    partial.replace(target)
    print(target)


if __name__ == "__main__":
    main()
