"""Listing the repository's files with ignore rules, binary detection and size caps."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from patchwright.workspace.files import list_files, read_context_files


def make_tree(root: Path) -> None:
    files = {
        "src/app.py": "print('app')\n",
        "src/gen/out.txt": "generated\n",
        "src/gen/keep.txt": "keep me\n",
        "src/.gitignore": "gen/*\n!gen/keep.txt\n",
        ".gitignore": "*.log\nbuild/\n",
        "debug.log": "noise\n",
        "build/lib.py": "x\n",
        "notes/secret.md": "private\n",
        ".patchwrightignore": "notes/\n",
        "node_modules/pkg/index.js": "module.exports = 1\n",
        ".venv/lib/site.py": "x\n",
        "myenv/pyvenv.cfg": "home = /usr\n",
        "myenv/lib/thing.py": "x\n",
        "src/__pycache__/app.cpython-311.pyc": "bytecode\n",
        # cargo's target/ (made by a baseline `cargo test` where no .gitignore names it)
        "target/CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n# by cargo\n",
        "target/debug/deps/app-1c80.d": "src/lib.rs:\n",
        "notes2/CACHEDIR.TAG": "no signature: not a cache\n",
        ".patchwright/undo/x/manifest.json": "{}\n",
        "README.md": "# hi\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + bytes(100))


EXPECTED = [
    ".gitignore",
    ".patchwrightignore",
    "README.md",
    "logo.png",
    "notes2/CACHEDIR.TAG",
    "src/.gitignore",
    "src/app.py",
    "src/gen/keep.txt",
]


def test_walker_honours_gitignore_at_every_level_and_builtin_ignores(tmp_path: Path) -> None:
    make_tree(tmp_path)
    assert [f.path for f in list_files(tmp_path)] == EXPECTED


def test_git_listing_gives_the_same_answer(tmp_path: Path) -> None:
    make_tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, timeout=60)
    subprocess.run(["git", "add", "README.md"], cwd=tmp_path, check=True, timeout=60)
    (tmp_path / "README.md").unlink()  # tracked in the index but deleted on disk
    expected = [p for p in EXPECTED if p != "README.md"]
    assert [f.path for f in list_files(tmp_path)] == expected
    assert [f.path for f in list_files(tmp_path, use_git=False)] == expected


def test_binary_and_size_flags(tmp_path: Path) -> None:
    make_tree(tmp_path)
    (tmp_path / "big.txt").write_text("x" * 2000)
    by_path = {f.path: f for f in list_files(tmp_path, max_file_bytes=1000)}
    assert by_path["logo.png"].binary and not by_path["src/app.py"].binary
    assert by_path["big.txt"].too_large and by_path["big.txt"].size == 2000
    assert not by_path["src/app.py"].too_large


def test_symlink_pointing_out_of_the_repo_is_not_listed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("secret")
    os.symlink(tmp_path / "outside.txt", root / "leak.txt")
    (root / "ok.txt").write_text("fine")
    assert [f.path for f in list_files(root)] == ["ok.txt"]


def test_extra_ignores_are_applied(tmp_path: Path) -> None:
    make_tree(tmp_path)
    paths = [f.path for f in list_files(tmp_path, extra_ignores=["*.md", "src/gen/"])]
    assert "README.md" not in paths and "src/gen/keep.txt" not in paths


def test_read_context_files_applies_caps_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a" * 300)
    (tmp_path / "b.py").write_text("b" * 300)
    (tmp_path / "huge.py").write_text("h" * 5000)
    (tmp_path / "c.py").write_text("c" * 300)
    (tmp_path / "img.bin").write_bytes(b"\x00\x01" * 10)
    (tmp_path / "crlf.txt").write_bytes(b"x\r\ny\r\n")
    ctx = read_context_files(
        tmp_path,
        ["a.py", "huge.py", "img.bin", "missing.py", "../etc/passwd", "b.py", "crlf.txt", "c.py"],
        max_file_bytes=1000,
        max_total_bytes=700,
    )
    assert list(ctx.files) == ["a.py", "b.py", "crlf.txt"]
    assert ctx.files["crlf.txt"].text == "x\ny\n" and ctx.files["crlf.txt"].newline == "\r\n"
    reasons = {s.path: s.reason for s in ctx.skipped}
    assert reasons["huge.py"].startswith("too large")
    assert reasons["img.bin"] == "binary"
    assert reasons["missing.py"] == "not found"
    assert "'..'" in reasons["../etc/passwd"]
    assert reasons["c.py"].startswith("total cap reached")
    assert ctx.total_bytes == 606
    assert "c.py: total cap reached" in ctx.describe_skipped()


@pytest.mark.parametrize("use_git", [True, False])
def test_read_context_defaults_to_every_listed_text_file(tmp_path: Path, use_git: bool) -> None:
    make_tree(tmp_path)
    if use_git:
        subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, timeout=60)
    ctx = read_context_files(tmp_path)
    assert "src/app.py" in ctx.files and "logo.png" not in ctx.files
    assert [s.path for s in ctx.skipped] == ["logo.png"]
