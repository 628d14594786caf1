"""A package frozen as it was: its files read into memory, then served from there to the
import system (modules not loaded yet), to ``importlib.resources`` (data files) and to a
loader's ``get_source``, whatever happens to the folder afterwards.

:mod:`.selfguard` freezes the packages the running process was loaded from when a review is
about to change their folder; see its docstring for why and what else it covers.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import io
import os
from collections.abc import Iterator, Sequence
from importlib.resources.abc import Traversable, TraversableResources
from os import PathLike
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import IO

SKIP_PARTS = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
MAX_FILE_BYTES = 8 * 1024 * 1024  # a bigger file is left on disk (data, not code)


def read_folder(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative POSIX path → bytes), caches and compiled files
    left out."""
    files: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if SKIP_PARTS.intersection(rel.parts) or path.suffix in (".pyc", ".pyo"):
            continue
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            files[rel.as_posix()] = path.read_bytes()
    return files


class FrozenPackage(importlib.abc.MetaPathFinder):
    """Finds the modules of package ``name`` (folder ``folder``) in ``files``, the folder's
    content when it was frozen. A module whose file appeared since is refused."""

    def __init__(self, name: str, folder: Path, files: dict[str, bytes]) -> None:
        self.name, self.folder, self.files = name, folder, files

    def owns(self, fullname: str) -> bool:
        return fullname == self.name or fullname.startswith(self.name + ".")

    def relative(self, path: str | Path) -> str | None:
        """``path`` relative to the folder, when it is inside it."""
        try:
            return Path(path).resolve().relative_to(self.folder).as_posix()
        except ValueError:
            return None

    def module_file(self, fullname: str) -> tuple[str, bool] | None:
        """The frozen file of module ``fullname`` and whether it is a package."""
        base = "/".join(fullname.split(".")[1:])
        init = f"{base}/__init__.py" if base else "__init__.py"
        if init in self.files:
            return init, True
        return (f"{base}.py", False) if base and f"{base}.py" in self.files else None

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not self.owns(fullname):
            return None
        found = self.module_file(fullname)
        if found is None:
            where = self.folder.joinpath(*fullname.split(".")[1:])
            if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
                raise ImportError(
                    f"{fullname} was added to {self.folder} after this process froze it for a "
                    "review: the running process does not load code the review changed",
                    name=fullname,
                )
            return None  # not there then, not there now (or not Python source): as usual
        rel, package = found
        origin = self.folder / rel
        locations = [str(origin.parent)] if package else None
        return importlib.util.spec_from_file_location(
            fullname, origin, loader=FrozenLoader(self, rel), submodule_search_locations=locations
        )


class FrozenLoader(importlib.abc.SourceLoader):
    """Loads one module's frozen source (never a ``.pyc``, never the file as it is now)."""

    def __init__(self, package: FrozenPackage, rel: str) -> None:
        self.package, self.rel = package, rel

    def get_filename(self, fullname: str | None = None) -> str:
        return str(self.package.folder / self.rel)

    def get_data(self, path: str) -> bytes:
        rel = self.package.relative(path)
        if rel is None or rel not in self.package.files:
            raise OSError(f"{path} is not part of the frozen {self.package.name}")
        return self.package.files[rel]

    def is_package(self, fullname: str) -> bool:
        return self.rel.endswith("__init__.py")

    def get_resource_reader(self, fullname: str) -> TraversableResources | None:
        if not self.is_package(fullname):
            return None
        return FrozenResources(FrozenFile(self.package, str(PurePosixPath(self.rel).parent)))


class FrozenResources(TraversableResources):
    def __init__(self, root: FrozenFile) -> None:
        self.root = root

    def files(self) -> Traversable:
        return self.root


class FrozenFile(Traversable):
    """A file or folder of a frozen package, for ``importlib.resources``."""

    def __init__(self, package: FrozenPackage, rel: str) -> None:
        self.package, self.rel = package, "" if rel in ("", ".") else rel

    @property
    def name(self) -> str:
        return PurePosixPath(self.rel).name

    def _prefix(self) -> str:
        return f"{self.rel}/" if self.rel else ""

    def iterdir(self) -> Iterator[Traversable]:
        prefix = self._prefix()
        names = {k[len(prefix) :].split("/")[0] for k in self.package.files if k.startswith(prefix)}
        return iter([FrozenFile(self.package, prefix + n) for n in sorted(names)])

    def is_dir(self) -> bool:
        prefix = self._prefix()
        return any(k.startswith(prefix) for k in self.package.files)

    def is_file(self) -> bool:
        return self.rel in self.package.files

    def joinpath(self, *descendants: str | PathLike[str]) -> Traversable:
        parts = [os.fspath(d) for d in descendants]
        return FrozenFile(self.package, str(PurePosixPath(self.rel, *parts)))

    def __truediv__(self, child: str | PathLike[str]) -> Traversable:
        return self.joinpath(child)

    def read_bytes(self) -> bytes:
        if not self.is_file():
            raise FileNotFoundError(f"{self.rel} is not a file of the frozen {self.package.name}")
        return self.package.files[self.rel]

    def read_text(self, encoding: str | None = None) -> str:
        return self.read_bytes().decode(encoding or "utf-8")

    def open(self, mode: str = "r", encoding: str | None = None) -> IO[bytes] | IO[str]:  # type: ignore[override]
        data = io.BytesIO(self.read_bytes())
        return data if "b" in mode else io.TextIOWrapper(data, encoding=encoding or "utf-8")
