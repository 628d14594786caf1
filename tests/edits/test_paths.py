"""resolve_path: exact, cwd-relative, unique basename or suffix, fuzzy; ambiguity errors."""

from __future__ import annotations

import pytest

from patchwright.edits import PathResolutionError, resolve_path

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
