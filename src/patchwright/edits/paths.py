"""Recognising file paths in model replies and resolving them against the repository."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from patchwright.edits.types import PathResolutionError

FUZZY_PATH_SCORE = 90.0
# A heading, comment, bullet or quote mark, then an optional (emphasised) "File:" label. A
# bullet star needs a space after it: ``**x.py**`` is emphasis, kept for pair stripping.
_PREFIX = re.compile(
    r"^(?:#+|//|\*(?=\s)|-|>)?\s*"
    r"(?:[*_]{0,2}(?:file|filename|path|filepath)\s*[:=]\s*(?:[*_]{1,2}(?=\s))?\s*)?",
    re.I,
)
# Marks a model wraps a path in; removed only as matched pairs, longest first.
_WRAPPERS = ("**", "__", "`", "*", "_", "'", '"')
_TOKEN = re.compile(r"^[\w.@+~/\\-]+$")
_BARE_NAMES = {
    "Makefile",
    "Dockerfile",
    "Containerfile",
    "Procfile",
    "Gemfile",
    "Rakefile",
    "Jenkinsfile",
    "Vagrantfile",
    "LICENSE",
    "README",
    "CODEOWNERS",
}


def unwrapped_forms(raw: str) -> list[str]:
    """``raw`` and each form with one more matched pair of quotes or emphasis removed
    (a trailing colon first): ``**`x.py`**:`` gives ``**`x.py`**``, ``` `x.py` ```, ``x.py``.
    Unmatched marks stay: ``__init__.py`` and ``_private.py`` are names, not emphasis."""
    forms = [raw.strip()]
    while True:
        text = forms[-1].rstrip(":").strip()
        for mark in _WRAPPERS:
            if len(text) > 2 * len(mark) and text.startswith(mark) and text.endswith(mark):
                text = text[len(mark) : -len(mark)].strip()
                break
        if text == forms[-1]:
            return forms
        forms.append(text)


def _normalise(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def clean_path(raw: str) -> str:
    """Normalise a path as written by a model: matched quotes and emphasis, ``./`` and
    backslashes go; ``a/``/``b/`` stay (resolution handles them)."""
    return _normalise(unwrapped_forms(raw)[-1])


def _exists(path: str, known_files: Sequence[str]) -> bool:
    return path in known_files or any(k.endswith("/" + path) for k in known_files)


def path_from_line(line: str, known_files: Sequence[str] = ()) -> str | None:
    """The path a line names when the line is nothing but a (decorated) path, else None.

    Accepts ``src/x.py``, ``**src/x.py**``, ```` `x.py`: ````, ``# File: x.py``, ``// x.rs``.
    """
    text = line.strip()
    if not text or len(text) > 250 or text.startswith("```") or text.startswith("~~~"):
        return None
    forms = [_normalise(f) for f in unwrapped_forms(_PREFIX.sub("", text, count=1))]
    for form in forms:  # a name that exists wins over any cleaned-up form of it
        if form and _TOKEN.match(form) and _exists(form, known_files):
            return form
    text = forms[-1]
    if not text or not _TOKEN.match(text):
        return None
    base = text.rsplit("/", 1)[-1]
    if base in _BARE_NAMES:
        return text
    if "/" in text.strip("/") and re.search(r"[A-Za-z]", base):
        return text
    if "." in base.strip(".") and not text.endswith(".") and re.search(r"[A-Za-z]", base):
        if re.fullmatch(r"[\d.]+", base) or text.startswith("..."):
            return None
        return text
    return None


def path_from_info(info: str, known_files: Sequence[str] = ()) -> str | None:
    """The path in a fence info string: ```` ```src/x.py ````, ```` ```python src/x.py ````, ``py:x.py``."""
    info = info.strip()
    if not info:
        return None
    for piece in re.split(r"[\s:]+", info)[::-1]:
        piece = piece.strip()
        if piece.startswith(("title=", "file=", "path=")):
            piece = piece.split("=", 1)[1]
        found = path_from_line(piece, known_files)
        if found and ("." in found or "/" in found or found in known_files):
            return found
    return None


def _dir_of(path: str, repo_files: Sequence[str]) -> bool:
    prefix = path.rstrip("/") + "/"
    return any(f.startswith(prefix) for f in repo_files)


def _suffix_matches(path: str, repo_files: Sequence[str]) -> list[str]:
    return [f for f in repo_files if f == path or f.endswith("/" + path)]


def _fuzzy(path: str, repo_files: Sequence[str]) -> list[str]:
    ext = posixpath.splitext(path)[1]
    pool = [f for f in repo_files if posixpath.splitext(f)[1] == ext]
    hits = process.extract(path, pool, scorer=fuzz.ratio, score_cutoff=FUZZY_PATH_SCORE, limit=5)
    if not hits:
        return []
    best = hits[0][1]
    return [h[0] for h in hits if h[1] >= best - 3]


def resolve_path(
    raw: str, repo_files: Sequence[str], *, cwd: str = "", must_exist: bool = False
) -> str:
    """Resolve a model-written path to a repository path (posix, relative to the root).

    Tries, in order: exact; relative to ``cwd``; a unique file whose path ends with it
    (a bare basename included); a close fuzzy match among files with the same
    extension. With ``must_exist`` (the edit has a SEARCH), a bare basename shared by
    several files is ambiguous even when one of them sits at the root: the caller can
    then pick the candidate by content (``pick_by_content``). Ambiguity raises ``PathResolutionError`` listing the candidates; an
    unknown path is returned cleaned (a new file) unless ``must_exist``. Paths that
    name a directory are refused. Confinement to the repository is the caller's job.
    """
    files = list(repo_files)
    forms = [_normalise(f) for f in unwrapped_forms(raw)]
    path = next((f for f in forms if f and _exists(f, files)), forms[-1])
    if not path:
        raise PathResolutionError("empty file path")
    known = set(files)
    if path in known and not (must_exist and "/" not in path):
        return path
    if cwd and not path.startswith("/"):
        rel = posixpath.normpath(posixpath.join(cwd, path))
        if rel in known:
            return rel
    for candidate in (path, path[2:] if path.startswith(("a/", "b/")) else ""):
        if not candidate:
            continue
        hits = _suffix_matches(candidate, files)
        if candidate in known and ("/" in candidate or len(hits) == 1 or not must_exist):
            return candidate
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise PathResolutionError(
                f"'{raw}' matches {len(hits)} files: {', '.join(sorted(hits)[:10])}; "
                "give the full path",
                sorted(hits),
            )
    if _dir_of(path, files):
        raise PathResolutionError(f"'{raw}' is a directory, not a file")
    fuzzy = _fuzzy(path, files)
    if len(fuzzy) == 1 and must_exist:
        return fuzzy[0]
    if len(fuzzy) > 1 and must_exist:
        raise PathResolutionError(
            f"'{raw}' is not a file; it is close to {', '.join(fuzzy)}: give the exact path",
            fuzzy,
        )
    if must_exist:
        raise PathResolutionError(f"'{raw}' does not exist in the repository")
    return path
