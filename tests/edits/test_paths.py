"""resolve_path: exact, cwd-relative, unique basename or suffix, fuzzy; ambiguity errors."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from patchwright.edits import PathResolutionError, resolve_path
from patchwright.edits.paths import clean_path, path_from_line

FILES = ["src/pkg/core.py", "src/pkg/util.py", "tests/test_core.py", "docs/util.py", "Makefile"]


def test_exact_and_cleaned() -> None:
    assert resolve_path("src/pkg/core.py", FILES) == "src/pkg/core.py"
    assert resolve_path("`./src/pkg/core.py`", FILES) == "src/pkg/core.py"
    assert resolve_path("src\\pkg\\core.py", FILES) == "src/pkg/core.py"


def test_relative_to_cwd() -> None:
    assert resolve_path("core.py", FILES, cwd="src/pkg") == "src/pkg/core.py"
    assert resolve_path("../tests/test_core.py", FILES, cwd="src") == "tests/test_core.py"


def test_unique_basename_and_suffix() -> None:
    assert resolve_path("core.py", FILES) == "src/pkg/core.py"
    assert resolve_path("pkg/util.py", FILES) == "src/pkg/util.py"
    assert resolve_path("b/src/pkg/core.py", FILES) == "src/pkg/core.py"


def test_ambiguous_basename_lists_candidates() -> None:
    with pytest.raises(PathResolutionError) as err:
        resolve_path("util.py", FILES)
    assert err.value.candidates == ["docs/util.py", "src/pkg/util.py"]
    assert "docs/util.py" in str(err.value)


def test_fuzzy_only_for_existing_files() -> None:
    assert resolve_path("src/pkg/cores.py", FILES, must_exist=True) == "src/pkg/core.py"
    assert resolve_path("src/pkg/cores.py", FILES) == "src/pkg/cores.py"


def test_new_file_is_returned_cleaned_and_missing_required_file_errors() -> None:
    assert resolve_path("./src/pkg/new.py", FILES) == "src/pkg/new.py"
    with pytest.raises(PathResolutionError):
        resolve_path("nothing/like/this.rs", FILES, must_exist=True)


def test_a_directory_is_not_a_file() -> None:
    with pytest.raises(PathResolutionError, match="directory"):
        resolve_path("src/pkg", FILES)


# --- underscores, dunders and emphasis: a real package's files resolve to themselves ---


def _stdlib_files() -> list[str]:
    """Every .py file of a few real stdlib packages plus the top-level private modules:
    ``__init__.py``, ``__main__.py``, ``_strptime.py``, ``_pydecimal.py``, ..."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    files = [p.relative_to(lib).as_posix() for p in lib.glob("_*.py")]
    for package in ("json", "email", "asyncio", "importlib", "concurrent", "sqlite3"):
        files += [p.relative_to(lib).as_posix() for p in (lib / package).rglob("*.py")]
    return sorted(f for f in files if "__pycache__" not in f)


REAL_FILES = _stdlib_files()
BASENAMES = [f.rsplit("/", 1)[-1] for f in REAL_FILES]
UNIQUE = [f for f in REAL_FILES if BASENAMES.count(f.rsplit("/", 1)[-1]) == 1]
DECORATIONS = ["{}", "`{}`", "**{}**", "**`{}`**", "`{}`:", "{}:", "# {}", "## File: {}",
               "**File:** {}", "- `{}`", '"{}"', "'{}'", "*{}*", "./{}"]  # fmt: skip


def test_the_corpus_has_the_names_that_broke() -> None:
    assert "_strptime.py" in REAL_FILES
    assert "json/__init__.py" in REAL_FILES
    assert "asyncio/__main__.py" in REAL_FILES


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(REAL_FILES), st.sampled_from(DECORATIONS), st.booleans())
def test_a_file_named_by_path_or_unique_basename_resolves_to_itself(
    path: str, decoration: str, by_basename: bool
) -> None:
    name = path.rsplit("/", 1)[-1] if by_basename else path
    if by_basename and path not in UNIQUE:
        return  # a shared basename is ambiguous by design (tested above)
    written = decoration.format(name)
    found = path_from_line(written, REAL_FILES)
    assert found is not None, written
    assert resolve_path(found, REAL_FILES, must_exist=True) == path
    if not decoration.startswith(("#", "-", "**File")):  # a path as an edit block names it
        assert resolve_path(written, REAL_FILES, must_exist=True) == path


def test_private_and_dunder_basenames_are_not_stripped() -> None:
    assert path_from_line("_strptime.py", REAL_FILES) == "_strptime.py"
    assert path_from_line("**_strptime.py**", REAL_FILES) == "_strptime.py"
    assert path_from_line("__main__.py", ["pkg/__main__.py"]) == "__main__.py"
    assert resolve_path("__main__.py", ["pkg/__main__.py"], must_exist=True) == "pkg/__main__.py"
    assert clean_path("__init__.py") == "__init__.py"
    assert clean_path("_private.py") == "_private.py"


def test_only_matched_emphasis_pairs_are_removed() -> None:
    assert clean_path("**src/x.py**") == "src/x.py"
    assert clean_path("`src/x.py`") == "src/x.py"
    assert clean_path("**src/x.py") == "**src/x.py"  # unmatched: left for resolution to refuse
    assert clean_path("_x.py_") == "x.py"  # emphasis of a name that does not exist
    assert resolve_path("_x.py_", ["_x.py_"]) == "_x.py_"  # but an existing name wins


def test_a_new_private_file_keeps_its_underscore() -> None:
    assert path_from_line("pkg/_new.py", ["pkg/a.py"]) == "pkg/_new.py"
    assert resolve_path("_new.py", ["pkg/a.py"]) == "_new.py"
