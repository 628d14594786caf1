"""Path confinement: nothing the model names may lead outside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from patchwright.workspace.paths import PathEscapeError, confine


def test_plain_relative_path_resolves_inside_root(tmp_path: Path) -> None:
    assert confine(tmp_path, "src/a.py") == tmp_path.resolve() / "src" / "a.py"


@pytest.mark.parametrize(
    "bad", ["../outside", "src/../../x", "a/../b", "..", "..\\win", "/etc/passwd", "C:\\x", ""]
)
def test_escaping_or_absolute_or_empty_paths_are_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(PathEscapeError):
        confine(tmp_path, bad)


def test_symlink_leading_out_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "link")
    with pytest.raises(PathEscapeError, match="symlink"):
        confine(root, "link/secret.txt")
    os.symlink(outside / "f.txt", root / "file_link")
    with pytest.raises(PathEscapeError):
        confine(root, "file_link")


def test_symlink_inside_root_resolves_to_its_target(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x")
    os.symlink("real.txt", tmp_path / "alias.txt")
    assert confine(tmp_path, "alias.txt") == tmp_path.resolve() / "real.txt"
