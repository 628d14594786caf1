"""Extracting ``git archive``'s tar stream: what stays inside the destination is written,
anything that would land or point outside is refused — with Python's ``data`` filter, and by
hand where the filter does not exist (Python before 3.11.4, such as Debian 12's 3.11.2)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from patchwright.workspace.untar import UnsafeArchive, extract

REFUSED = (UnsafeArchive, getattr(tarfile, "FilterError", UnsafeArchive))


@pytest.fixture(params=["data filter", "by hand"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    has_filter = hasattr(tarfile, "data_filter")
    if request.param == "data filter" and not has_filter:
        pytest.skip("this Python has no data filter (before 3.11.4)")
    if request.param == "by hand" and has_filter:
        monkeypatch.delattr(tarfile, "data_filter")
    return str(request.param)


def tar_of(*members: tuple[str, str | None, str | None]) -> io.BytesIO:
    """A tar of ``(name, file text or None, link target or None)`` members."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for name, text, link in members:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                archive.addfile(info)
            else:
                data = (text or "").encode()
                info.size, info.mode = len(data), 0o4777
                archive.addfile(info, io.BytesIO(data))
    out.seek(0)
    return out


def test_a_git_archive_is_extracted_whole(tmp_path: Path, way: str) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "calc.py").write_text("x = 1\n")
    (repo / "run.sh").write_text("echo hi\n")
    (repo / "run.sh").chmod(0o755)
    (repo / "link").symlink_to("pkg/calc.py")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    archive = subprocess.run([*git, "archive", "--format=tar", "HEAD"], capture_output=True)

    extract(io.BytesIO(archive.stdout), tmp_path / "out")

    out = tmp_path / "out"
    assert (out / "pkg" / "calc.py").read_text() == "x = 1\n"
    assert (out / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (out / "link").is_symlink() and (out / "link").read_text() == "x = 1\n"


@pytest.mark.parametrize(
    "members",
    [
        [("../../../escaped.txt", "x", None)],
        [("{tmp}/escaped.txt", "x", None)],
        [("out-link", None, "../../.."), ("out-link/escaped.txt", "x", None)],
        [("secret", None, "/etc/passwd")],
    ],
    ids=["dot-dot", "absolute", "through a link out", "link out"],
)
def test_nothing_is_written_or_points_outside(
    tmp_path: Path, way: str, members: list[tuple[str, str | None, str | None]]
) -> None:
    dest = tmp_path / "a" / "b" / "out"
    dest.mkdir(parents=True)
    named = [(name.format(tmp=tmp_path), text, link) for name, text, link in members]
    with contextlib.suppress(*REFUSED):  # refused, or kept inside
        extract(tar_of(*named), dest)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (dest / "secret").is_symlink()


def test_set_id_bits_and_shared_write_are_dropped(tmp_path: Path, way: str) -> None:
    extract(tar_of(("tool", "#!/bin/sh\n", None)), tmp_path)
    assert (tmp_path / "tool").stat().st_mode & 0o7777 == 0o755
