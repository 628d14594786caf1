"""Which source files of a Rust crate a file's tests exercise: its own ``#[cfg(test)]`` module
(a unit test tests the file it lives in) and the items its ``use`` lines and paths name —
``use calc::ops::{add, mul}`` or ``calc::add(2, 3)`` in an integration test under ``tests/``,
``crate::ops::add`` inside the crate — resolved through the module files (``ops.rs`` or
``ops/mod.rs``) to the file that defines the item, wherever the crate re-exports it."""

from __future__ import annotations

import posixpath
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from patchwright.index.locate import is_test_path

_USE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.M)
_PATH = re.compile(r"\b([A-Za-z_]\w*)((?:::[A-Za-z_]\w*)+)")
_CALLED = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\(|::|!?\{)")
INLINE_TESTS = re.compile(r"#\[cfg\(test\)\]")

DefinedIn = Callable[[str], set[str]]  # a source file -> the names it defines


@dataclass(frozen=True)
class Crate:
    name: str  # as Rust code spells it (hyphens become underscores)
    root: str  # the folder holding Cargo.toml ("" at the repository's top)
    lib: str  # the library's root file, "" for a binary-only crate


def crates(texts: Mapping[str, str]) -> list[Crate]:
    """The crates of the repository, from each ``Cargo.toml`` with a ``[package]``."""
    found: list[Crate] = []
    for path, text in texts.items():
        if posixpath.basename(path) != "Cargo.toml":
            continue
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            continue
        package, lib = data.get("package"), data.get("lib")
        if not isinstance(package, dict) or not isinstance(package.get("name"), str):
            continue
        lib = lib if isinstance(lib, dict) else {}
        root = posixpath.dirname(path)
        name = str(lib.get("name") or package["name"]).replace("-", "_")
        lib_file = posixpath.normpath(posixpath.join(root, str(lib.get("path", "src/lib.rs"))))
        found.append(Crate(name, root, lib_file if lib_file in texts else ""))
    return sorted(found, key=lambda c: -len(c.root))  # the innermost crate first


def crate_of(path: str, all_crates: Sequence[Crate]) -> Crate | None:
    for crate in all_crates:
        if not crate.root or path.startswith(crate.root + "/"):
            return crate
    return None


def use_paths(text: str) -> list[list[str]]:
    """The paths ``use`` lines import, each as its segments: ``use a::{b, c::d as e};`` gives
    ``[["a", "b"], ["a", "c", "d"]]``; a glob ends in ``"*"``."""
    out: list[list[str]] = []
    for tree in _USE.findall(text):
        out.extend(_expand(re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", tree))))
    return out


def _expand(tree: str) -> list[list[str]]:
    """The paths of one use tree (no whitespace)."""
    if "{" not in tree:
        return [[s for s in tree.split("::") if s]]
    head, _, rest = tree.partition("{")
    prefix = [s for s in head.split("::") if s]
    out: list[list[str]] = []
    for branch in _split_top(rest[: rest.rfind("}")]):
        out.extend(prefix + sub for sub in _expand(branch) if sub)
    return out


def _split_top(body: str) -> list[str]:
    """``body`` split on the commas outside braces."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(body):
        depth += (char == "{") - (char == "}")
        if char == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p for p in parts if p]


class CrateResolver:
    """Resolves paths into a crate's source files (see the module docstring)."""

    def __init__(self, crate: Crate, texts: Mapping[str, str], defined_in: DefinedIn) -> None:
        self.crate, self.texts, self.defined_in = crate, texts, defined_in
        prefix = posixpath.join(crate.root, "src") + "/" if crate.root else "src/"
        self.sources = [p for p in texts if p.startswith(prefix) and p.endswith(".rs")]

    def defining(self, name: str) -> list[str]:
        return sorted(p for p in self.sources if name in self.defined_in(p))

    def resolve(self, segments: Sequence[str]) -> list[str]:
        """The files ``segments`` (after the crate's name) lead to: the module file a path
        ends on, or the file(s) defining the item it ends on."""
        file, folder = self.crate.lib, posixpath.dirname(self.crate.lib)
        for seg in segments:
            if seg in ("*", "self"):
                break
            module = [f"{folder}/{seg}.rs", f"{folder}/{seg}/mod.rs"]
            hit = next((m for m in module if m in self.texts), None)
            if hit is not None:
                file, folder = hit, f"{folder}/{seg}"
                continue
            if seg in self.defined_in(file):
                return [file]
            return self.defining(seg) or [file]
        return [file]


def rust_code_under_test(
    path: str, texts: Mapping[str, str], all_crates: Sequence[Crate], defined_in: DefinedIn
) -> list[str]:
    """The crate's source files the tests in ``path`` exercise (see the module docstring)."""
    text = texts.get(path, "")
    found: list[str] = []
    if INLINE_TESTS.search(text) and not is_test_path(path):
        found.append(path)
    crate = crate_of(path, all_crates)
    if crate is None or not crate.lib:
        return found
    resolver = CrateResolver(crate, texts, defined_in)
    inside = path in resolver.sources
    own = "crate" if inside else crate.name
    paths = [p for p in use_paths(text) if p and p[0] == own]
    paths += [[own, *rest.split("::")[1:]] for head, rest in _PATH.findall(text) if head == own]
    for segments in paths:
        for file in resolver.resolve(segments[1:]):
            if file not in found:
                found.append(file)
    if any(p[-1] == "*" for p in paths):  # a glob: the crate's items the tests call
        for name in sorted(set(_CALLED.findall(text))):
            for file in resolver.defining(name):
                if file not in found:
                    found.append(file)
    return found
