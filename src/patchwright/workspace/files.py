"""The repository as a list of files, and the files read into a model's context.

Listing honours ``.gitignore`` at every level — through ``git ls-files`` in a repository,
through pathspec's gitignore rules otherwise — plus ``.patchwrightignore`` (gitignore
syntax, at the root) and built-in ignores (VCS folders, virtualenvs, ``node_modules``,
caches, ``.patchwright/``) and folders that say they are generated: a virtualenv
(``pyvenv.cfg``) or a tagged cache (``CACHEDIR.TAG``, https://bford.info/cachedir/ — cargo's
``target/`` among them, which a Rust task's own baseline test run creates). Each file carries its size and whether it is binary or over
the per-file cap; :func:`read_context_files` applies the per-file and total caps and says
what it skipped and why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from patchwright.workspace.errors import BinaryFileError, GitError, PathEscapeError
from patchwright.workspace.git import GitRepo
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, decode_bytes, looks_binary

__all__ = [
    "BUILTIN_IGNORES",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_MAX_TOTAL_BYTES",
    "ContextFiles",
    "RepoFile",
    "Skipped",
    "list_files",
    "read_context_files",
]

DEFAULT_MAX_FILE_BYTES = 512 * 1024
DEFAULT_MAX_TOTAL_BYTES = 8 * 1024 * 1024
IGNORE_FILE = ".patchwrightignore"
BUILTIN_IGNORES: tuple[str, ...] = (
    ".git/", ".hg/", ".svn/", ".patchwright/",
    ".venv/", "venv/", ".virtualenv/", "node_modules/", "bower_components/",
    "__pycache__/", "*.py[cod]", ".mypy_cache/", ".pytest_cache/", ".ruff_cache/",
    ".tox/", ".nox/", ".hypothesis/", ".cache/", ".eggs/", "*.egg-info/",
    ".DS_Store", "Thumbs.db",
)  # fmt: skip
_SNIFF = 8000
_CACHEDIR_SIGNATURE = b"Signature: 8a477f597d28d172789f06886806bc55"


def _generated(folder: Path) -> bool:
    """A virtualenv, or a folder tagged as a cache (cargo's ``target/``, pytest's cache)."""
    if (folder / "pyvenv.cfg").exists():
        return True
    try:
        with (folder / "CACHEDIR.TAG").open("rb") as tag:
            return tag.read(len(_CACHEDIR_SIGNATURE)) == _CACHEDIR_SIGNATURE
    except OSError:
        return False


@dataclass(frozen=True)
class RepoFile:
    """One file of the repository (``path`` posix, relative to the root)."""

    path: str
    size: int
    binary: bool
    too_large: bool


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass
class ContextFiles:
    """Files read for a model's context, in the order asked, and what was left out."""

    files: dict[str, TextFile] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    total_bytes: int = 0

    def describe_skipped(self) -> str:
        return "\n".join(f"{s.path}: {s.reason}" for s in self.skipped)


def _spec(lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


class _Rules:
    """Built-in and ``.patchwrightignore`` rules, plus (without git) nested ``.gitignore``s."""

    def __init__(self, root: Path, extra: Sequence[str]) -> None:
        self.root = root
        self.fixed = _spec([*BUILTIN_IGNORES, *extra, *_read_lines(root / IGNORE_FILE)])
        self.nested: dict[str, pathspec.GitIgnoreSpec] = {}

    def load_gitignore(self, rel_dir: str) -> None:
        lines = _read_lines(self.root / rel_dir / ".gitignore")
        if lines:
            self.nested[rel_dir] = _spec(lines)

    def ignored(self, rel: str, is_dir: bool) -> bool:
        probe = rel + "/" if is_dir else rel
        if self.fixed.match_file(probe):
            return True
        verdict: bool | None = None
        for base, spec in self.nested.items():  # parents are loaded before children
            if base and not rel.startswith(base + "/"):
                continue
            sub = probe[len(base) + 1 :] if base else probe
            result = spec.check_file(sub).include
            if result is not None:
                verdict = result
        return bool(verdict)


def _walk(root: Path, rules: _Rules, use_gitignore: bool) -> Iterator[str]:
    for current, dirs, files in os.walk(root):
        rel_dir = Path(current).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        if use_gitignore:
            rules.load_gitignore(rel_dir)
        keep = []
        for name in sorted(dirs):
            rel = f"{rel_dir}/{name}" if rel_dir else name
            full = Path(current) / name
            if full.is_symlink() or _generated(full):
                continue
            if not rules.ignored(rel, True):
                keep.append(name)
        dirs[:] = keep
        for name in files:
            rel = f"{rel_dir}/{name}" if rel_dir else name
            if not rules.ignored(rel, False):
                yield rel


def _in_generated(root: Path, rel: str, cache: dict[str, bool]) -> bool:
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        folder = "/".join(parts[:i])
        if folder not in cache:
            cache[folder] = _generated(root / folder)
        if cache[folder]:
            return True
    return False


def _candidates(root: Path, rules: _Rules, use_git: bool) -> list[str]:
    repo = GitRepo(root)
    if use_git and repo.is_repo:
        try:
            top = repo.toplevel
            listed = repo.ls_files()
        except GitError:
            listed = None
        if listed is not None:
            prefix = "" if top == root else root.relative_to(top).as_posix() + "/"
            generated: dict[str, bool] = {}
            paths = [p[len(prefix) :] for p in listed if p.startswith(prefix)]
            return [
                p
                for p in paths
                if not rules.ignored(p, False)
                and not any(rules.ignored(d, True) for d in _parents(p))
                and not _in_generated(root, p, generated)
            ]
    return list(_walk(root, rules, use_gitignore=True))


def _parents(rel: str) -> Iterator[str]:
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        yield "/".join(parts[:i])


def _describe(root: Path, rel: str, max_file_bytes: int) -> RepoFile | None:
    try:
        path = confine(root, rel)
    except PathEscapeError:
        return None  # a symlink pointing out of the repository
    try:
        info = path.stat()
    except OSError:
        return None  # deleted but still in the index, or a broken symlink
    if not path.is_file():
        return None  # a submodule or other non-file entry
    with path.open("rb") as handle:
        head = handle.read(_SNIFF)
    return RepoFile(rel, info.st_size, looks_binary(head), info.st_size > max_file_bytes)


def list_files(
    root: Path,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    extra_ignores: Sequence[str] = (),
    use_git: bool = True,
) -> list[RepoFile]:
    """The repository's files, sorted by path, with ignore rules applied (see module doc).

    ``extra_ignores`` are more gitignore-style patterns; ``use_git=False`` forces the
    pathspec walker even inside a git repository.
    """
    root = Path(root).resolve()
    rules = _Rules(root, extra_ignores)
    result = []
    for rel in sorted(set(_candidates(root, rules, use_git))):
        described = _describe(root, rel, max_file_bytes)
        if described is not None:
            result.append(described)
    return result


def read_context_files(
    root: Path,
    paths: Sequence[str] | None = None,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
) -> ContextFiles:
    """Read ``paths`` (in priority order; default: every listed file) as text, applying the
    per-file and total caps. Binary, oversized, missing and escaping files are skipped,
    each with its reason, so the caller can tell the model what it did not see."""
    root = Path(root).resolve()
    if paths is None:
        paths = [f.path for f in list_files(root, max_file_bytes=max_file_bytes)]
    out = ContextFiles()
    for rel in paths:
        reason, text = _read_one(root, rel, max_file_bytes, max_total_bytes - out.total_bytes)
        if text is None:
            out.skipped.append(Skipped(rel, reason))
            continue
        out.files[rel] = text[0]
        out.total_bytes += text[1]
    return out


def _read_one(
    root: Path, rel: str, max_file_bytes: int, budget: int
) -> tuple[str, tuple[TextFile, int] | None]:
    try:
        path = confine(root, rel)
    except PathEscapeError as exc:
        return str(exc), None
    if not path.is_file():
        return "not found", None
    size = path.stat().st_size
    if size > max_file_bytes:
        return f"too large ({_kb(size)} > per-file cap {_kb(max_file_bytes)})", None
    if size > budget:
        return f"total cap reached ({_kb(size)} needed, {_kb(max(budget, 0))} left)", None
    try:
        return "", (decode_bytes(path.read_bytes()), size)
    except BinaryFileError:
        return "binary", None


def _kb(n: int) -> str:
    return f"{n / 1024:.0f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"
