"""Specification of path confinement, end to end: nothing a model names can be read or
written outside the repository — not through ``..``, not through an absolute or Windows
path, not through a symlink (dangling, chained or looping) — while odd but harmless names
(``..foo``, ``~``, ``./a``) stay ordinary files inside it.

Checked on :func:`confine` itself and on what uses it: :class:`Transaction` (writes),
:func:`read_context_files` (reads) and :func:`list_files` (listing).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from patchwright.workspace import (
    PathEscapeError,
    Transaction,
    TransactionError,
    WorkspaceError,
    confine,
    list_files,
    read_context_files,
)
from patchwright.workspace.paths import relative_to_root


@pytest.fixture(autouse=True)
def _private_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Journal keys go to a folder of this test, not the user's state folder."""
    monkeypatch.setenv("PATCHWRIGHT_STATE_DIR", str(tmp_path / "state"))


@pytest.fixture()
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A repository and a sibling folder outside it holding a secret."""
    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("outside secret\n")
    (root / "inside.txt").write_text("inside\n")
    return root, outside


def files_under(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# -- confine: harmless odd names stay inside ------------------------------------------------


@pytest.mark.parametrize(
    ("rel", "inside"),
    [
        ("..foo", "..foo"),
        ("a/..b", "a/..b"),
        ("./a.py", "a.py"),
        ("a/./b.py", "a/b.py"),
        ("a//b.py", "a/b.py"),
        ("~/x", "~/x"),
        ("$HOME/x", "$HOME/x"),
    ],
)
def test_names_that_only_look_special_are_plain_paths_inside_the_root(
    tmp_path: Path, rel: str, inside: str
) -> None:
    assert confine(tmp_path, rel) == tmp_path.resolve() / inside


@pytest.mark.parametrize(
    "rel",
    [
        "\\\\server\\share\\x",  # a UNC path
        "C:x",  # a drive-relative path
        "D:/data/x",
        "a\\..\\..\\x",  # backslashes count as separators for '..'
        "//etc/passwd",
        "a/\x00b",
        "  ",
    ],
)
def test_windows_forms_nul_bytes_and_blank_names_are_refused(tmp_path: Path, rel: str) -> None:
    with pytest.raises(PathEscapeError):
        confine(tmp_path, rel)


def test_the_error_says_what_to_give_instead(tmp_path: Path) -> None:
    with pytest.raises(PathEscapeError, match="relative to the repository root"):
        confine(tmp_path, "/etc/passwd")
    with pytest.raises(PathEscapeError, match=r"uses '\.\.'"):
        confine(tmp_path, "src/../../x")
    with pytest.raises(PathEscapeError, match="NUL"):
        confine(tmp_path, "a\x00")


def test_a_dangling_symlink_pointing_out_is_refused_before_anything_exists_there(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    os.symlink(outside / "not-yet.txt", root / "dangling")
    with pytest.raises(PathEscapeError, match="symlink"):
        confine(root, "dangling")


def test_a_chain_of_symlinks_is_followed_to_its_real_end(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    os.symlink("inside.txt", root / "hop1")
    os.symlink("hop1", root / "hop2")
    assert confine(root, "hop2") == root.resolve() / "inside.txt"
    os.symlink(outside, root / "out")
    os.symlink("out", root / "via")
    with pytest.raises(PathEscapeError):
        confine(root, "via/secret.txt")


def test_a_root_reached_through_a_symlink_still_confines(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    alias = root.parent / "alias"
    os.symlink(root, alias)
    assert confine(alias, "inside.txt") == root.resolve() / "inside.txt"
    with pytest.raises(PathEscapeError):
        confine(alias, "../outside/secret.txt")


def test_relative_to_root_gives_a_posix_path_from_the_resolved_root(tmp_path: Path) -> None:
    assert relative_to_root(tmp_path, tmp_path.resolve() / "a" / "b.py") == "a/b.py"


def test_a_symlink_loop_is_a_path_inside_or_a_path_error_never_a_crash(tmp_path: Path) -> None:
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    try:
        target = confine(tmp_path, "loop1/x.py")
    except WorkspaceError:
        return  # refused: fine
    assert target.is_relative_to(tmp_path.resolve())


# -- writes ------------------------------------------------------------------------------


def test_a_transaction_writes_nothing_outside_through_a_symlinked_folder(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    os.symlink(outside, root / "vendor")
    before = files_under(outside)
    tx = Transaction(root)
    with pytest.raises(PathEscapeError):
        tx.stage({"vendor/secret.txt": b"overwritten", "inside.txt": b"changed"})
    assert tx.touched == [], "a refused path stages nothing, not even the good ones"
    tx.rollback()
    assert files_under(outside) == before
    assert (root / "inside.txt").read_text() == "inside\n"


def test_a_transaction_refuses_a_dangling_symlink_that_would_create_a_file_outside(
    layout: tuple[Path, Path],
) -> None:
    root, outside = layout
    os.symlink(outside / "planted.txt", root / "plant")
    with pytest.raises(PathEscapeError), Transaction(root) as tx:
        tx.stage({"plant": b"x"})
    assert not (outside / "planted.txt").exists()


def test_writing_through_an_inside_symlink_changes_its_target_and_keeps_the_link(
    layout: tuple[Path, Path],
) -> None:
    root, _ = layout
    os.symlink("inside.txt", root / "alias.txt")
    with Transaction(root) as tx:
        tx.stage({"alias.txt": b"via alias\n"})
        assert tx.touched == ["inside.txt"]
    assert (root / "alias.txt").is_symlink()
    assert (root / "inside.txt").read_bytes() == b"via alias\n"


def test_a_transaction_refuses_the_root_itself_and_folders(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    (root / "pkg").mkdir()
    tx = Transaction(root)
    with pytest.raises(PathEscapeError, match="repository root"):
        tx.stage({".": b"x"})
    with pytest.raises(TransactionError, match="is a directory"):
        tx.stage({"pkg": b"x"})
    with pytest.raises(TransactionError, match="not editable"):
        tx.stage({"sub/.git/config": b"x"})


def test_a_transaction_on_a_missing_root_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TransactionError, match="not a directory"):
        Transaction(tmp_path / "missing")


# -- reads and listing ------------------------------------------------------------------------


def test_reading_for_context_never_follows_a_symlink_out(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    os.symlink(outside / "secret.txt", root / "leak.txt")
    os.symlink(outside, root / "leakdir")
    ctx = read_context_files(root, ["leak.txt", "leakdir/secret.txt", "inside.txt"])
    assert list(ctx.files) == ["inside.txt"]
    assert all("symlink" in s.reason for s in ctx.skipped)
    assert "outside secret" not in "".join(f.text for f in ctx.files.values())


def test_listing_skips_a_symlinked_folder_even_when_it_points_inside(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("x = 1\n")
    os.symlink("pkg", tmp_path / "pkg_alias")
    assert [f.path for f in list_files(tmp_path, use_git=False)] == ["pkg/mod.py"]


def test_listing_a_repository_with_a_symlink_loop_skips_the_loop(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    assert [f.path for f in list_files(tmp_path, use_git=False)] == ["a.py"]


def test_reading_a_symlink_loop_for_context_is_skipped_with_a_reason(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    ctx = read_context_files(tmp_path, ["loop1", "a.py"])
    assert list(ctx.files) == ["a.py"]
    assert [s.path for s in ctx.skipped] == ["loop1"]
