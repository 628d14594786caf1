"""Which source files a test file exercises, and which tests exercise a source file — in each
language patchwright runs tests for:

* Python: the modules a test imports (``from shop.pricing import x`` → ``shop/pricing.py``);
* JavaScript and TypeScript: the modules a test file ``require``\\ s or ``import``\\ s by a
  relative path (``../src/calc`` → ``src/calc.js``, ``src/calc.ts`` or ``src/calc/index.js``;
  ``./calc.js`` → ``calc.ts`` as TypeScript's ESM writes it) or by a path from the
  repository's top or its ``src/``;
* Go: the other files of a ``_test.go`` file's package folder, and the packages of the module
  it imports (``example.com/calc/ops`` → ``ops/*.go`` beside ``go.mod``);
* Rust: a file's own ``#[cfg(test)]`` module, and the items an integration test under
  ``tests/`` uses (:mod:`.rust_links`).

Test files are those :func:`patchwright.index.locate.is_test_path` says, plus a Rust source
holding a ``#[cfg(test)]`` module (its tests). Both :mod:`.related_tests` (which failing tests
a task is about) and :mod:`.context` (what the model sees) read these links.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from functools import cached_property
from pathlib import PurePosixPath

from patchwright.agent.relations.code_defs import JS_SUFFIXES, defined_names, family_of
from patchwright.agent.relations.rust_links import INLINE_TESTS, Crate, crates, rust_code_under_test
from patchwright.agent.relevance import imported_files
from patchwright.edits.go_imports import import_specs
from patchwright.index.locate import is_test_path

__all__ = ["CodeLinks"]

_JS_SPEC = re.compile(
    r"""(?:\bfrom\s*|\brequire\s*\(\s*|\bimport\s*\(\s*|^\s*import\s+|\bmock\s*\(\s*)"""
    r"""(['"])([^'"\n]+)\1""",
    re.M,
)
_TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.M)


class CodeLinks:
    """The links between the test files and the source files of one repository snapshot
    (``texts``: path -> text); what it learns about the repository is kept for the next ask."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = texts
        self.paths = sorted(texts)
        self._defined: dict[str, set[str]] = {}

    def defined_in(self, path: str) -> set[str]:
        if path not in self._defined:
            self._defined[path] = defined_names(path, self.texts.get(path, ""))
        return self._defined[path]

    @cached_property
    def _crates(self) -> list[Crate]:
        return crates(self.texts)

    @cached_property
    def _go_modules(self) -> list[tuple[str, str]]:
        """(folder, module path) of every ``go.mod``, the innermost first."""
        found = []
        for path in self.paths:
            if posixpath.basename(path) == "go.mod" and (m := _GO_MODULE.search(self.texts[path])):
                found.append((posixpath.dirname(path), m.group(1)))
        return sorted(found, key=lambda f: -len(f[0]))

    def code_under_test(self, path: str) -> list[str]:
        """The repository's source files the tests in ``path`` exercise (see the module
        docstring); for another file, the source files it imports."""
        text = self.texts.get(path, "")
        match family_of(path):
            case "python":
                return imported_files(text, self.paths)
            case "javascript":
                return self._js_imports(path, text)
            case "go":
                return self._go_package(path, text)
            case "rust":
                return rust_code_under_test(path, self.texts, self._crates, self.defined_in)
        return []

    def tests_of(self, source: str) -> list[str]:
        """The test files that exercise ``source``: a Rust file's own tests first, then those
        named after it (``calc.test.js`` and ``calc_test.go`` for ``calc``), then by path."""
        family = family_of(source)
        if family is None or source not in self.texts or is_test_path(source):
            return []
        hint = _module_name(source)
        found = [
            path
            for path in self.paths
            if path != source
            and family_of(path) == family
            and is_test_path(path)
            and (family in ("go", "rust") or hint in self.texts[path])
            and source in self.code_under_test(path)
        ]
        stem = PurePosixPath(source).stem
        found.sort(key=lambda p: (stem not in PurePosixPath(p).name, p))
        inline = family == "rust" and INLINE_TESTS.search(self.texts[source])
        return [source, *found] if inline else found

    def _js_imports(self, path: str, text: str) -> list[str]:
        found: list[str] = []
        folder = posixpath.dirname(path)
        for _, spec in _JS_SPEC.findall(text):
            if spec.startswith("."):
                bases = [posixpath.normpath(posixpath.join(folder, spec))]
            else:
                rest = re.sub(r"^[@~]/", "", spec)
                bases = [rest, f"src/{rest}"]
            for base in bases:
                hit = self._js_file(base)
                if hit and hit != path and not is_test_path(hit) and hit not in found:
                    found.append(hit)
                    break
        return found

    def _js_file(self, base: str) -> str | None:
        """The file an import of ``base`` loads, as node, bundlers and TypeScript look."""
        if base.startswith(".."):
            return None
        suffix = PurePosixPath(base).suffix
        tries = [base] if suffix in JS_SUFFIXES else []
        tries += [base[: -len(suffix)] + ts for ts in _TS_FOR_JS.get(suffix, ())]
        tries += [base + s for s in JS_SUFFIXES] + [f"{base}/index{s}" for s in JS_SUFFIXES]
        return next((t for t in tries if t in self.texts), None)

    def _go_package(self, path: str, text: str) -> list[str]:
        found = (
            list(self._go_folders.get(posixpath.dirname(path), ())) if is_test_path(path) else []
        )
        home = next(
            ((d, m) for d, m in self._go_modules if not d or path.startswith(d + "/")), None
        )
        if home is None:
            return found
        top, module = home
        for _, spec in import_specs(text):
            if spec != module and not spec.startswith(module + "/"):
                continue
            folder = posixpath.normpath(posixpath.join(top, spec[len(module) :].lstrip("/")))
            for file in self._go_folders.get("" if folder == "." else folder, ()):
                if file not in found:
                    found.append(file)
        return found

    @cached_property
    def _go_folders(self) -> dict[str, list[str]]:
        """The non-test Go files of each folder ("" for the top)."""
        folders: dict[str, list[str]] = {}
        for path in self.paths:
            if path.endswith(".go") and not is_test_path(path):
                folders.setdefault(posixpath.dirname(path), []).append(path)
        return folders


def _module_name(source: str) -> str:
    """The name a test uses for ``source``: its file stem, or its folder's for an index file
    (``__init__.py``, ``index.js``, ``mod.rs``)."""
    pure = PurePosixPath(source)
    if pure.stem in ("__init__", "index", "mod") and pure.parent.name:
        return pure.parent.name
    return pure.stem
