"""Go imports a change uses but the file lacks: the standard-library packages, added as
``goimports`` (and every Go editor on save) would add them.

A small model fixing a Go function reaches for ``sort.Ints`` or ``strings.ToLower`` and
leaves the import block as it was; the build then fails with ``undefined: sort``, and a
1.5B model shown that error writes the same change again (HumanEvalFix Go-19: four
iterations, the same missing ``import "sort"`` in each). When the new text calls
``name.Exported`` for a standard package ``name`` that the file neither imports nor declares,
and the old text did not already use ``name`` that way (then it comes from elsewhere in
the package), the import is added. Only a fixed table of standard packages, known by the
name they are used under, is ever added — never a guess at a third-party path.
"""

from __future__ import annotations

import re

# The name a standard package is used under -> its import path (Go 1.19's standard library:
# no slices/maps, which need 1.21).
STD_PACKAGES: dict[str, str] = {
    **{
        name: name
        for name in (
            "bufio bytes context errors fmt io log math os reflect regexp sort strconv "
            "strings sync testing time unicode"
        ).split()
    },
    "atomic": "sync/atomic",
    "base64": "encoding/base64",
    "big": "math/big",
    "binary": "encoding/binary",
    "bits": "math/bits",
    "cmplx": "math/cmplx",
    "csv": "encoding/csv",
    "filepath": "path/filepath",
    "heap": "container/heap",
    "hex": "encoding/hex",
    "json": "encoding/json",
    "md5": "crypto/md5",
    "rand": "math/rand",
    "sha1": "crypto/sha1",
    "sha256": "crypto/sha256",
    "utf16": "unicode/utf16",
    "utf8": "unicode/utf8",
}

# strings, raw strings, runes and comments: blanked before looking for names
_NOISE = re.compile(r'"(?:\\.|[^"\\\n])*"|`[^`]*`|\'(?:\\.|[^\'\\\n])+\'|//[^\n]*|/\*.*?\*/', re.S)
_USE = re.compile(r"(?<![\w.])([a-z][a-z0-9]*)\.[A-Z]\w*")
_SINGLE = re.compile(r'^import[ \t]+(?:([\w.]+)[ \t]+)?"([^"]+)"[ \t]*$', re.M)
_BLOCK = re.compile(r"^import\s*\(\n(.*?)^\)", re.M | re.S)
_ENTRY = re.compile(r'^[ \t]*(?:([\w.]+)\s+)?"([^"]+)"', re.M)
_SPECS = re.compile(r'^import[ \t]+(?:([\w.]+)[ \t]+)?"([^"]+)"|^import[ \t]*\(([^)]*)\)', re.M)
_PACKAGE = re.compile(r"^package\s+\w+[^\n]*\n", re.M)


def code_of(text: str) -> str:
    """``text`` with its strings, runes and comments blanked (blanked to spaces, so offsets are kept)."""
    return _NOISE.sub(lambda m: " " * len(m.group(0)), text)


def import_specs(text: str) -> list[tuple[str, str]]:
    """A Go file's imports as (alias or "", path), single-line and block ones alike."""
    specs: list[tuple[str, str]] = []
    for alias, single, block in _SPECS.findall(text):
        specs.extend([(alias, single)] if single else _ENTRY.findall(block))
    return specs


def _imported(text: str) -> set[str]:
    """The names a file's imports bind (an alias, else the path's last element)."""
    return {alias or path.rsplit("/", 1)[-1] for alias, path in import_specs(text)}


def _declares(code: str, name: str) -> bool:
    """``name`` is declared in the file: a variable, constant, function, type or parameter."""
    n = re.escape(name)
    return bool(
        re.search(rf"(?<![\w.]){n}\s*(?:,\s*\w+\s*)*:?=(?!=)", code)
        or re.search(rf",\s*{n}\s*:=", code)
        or re.search(rf"\b(?:var|const|type|func)\s+(?:\([^)]*\)\s*)?{n}\b", code)
        or re.search(rf"[(,]\s*{n}\s+[\w*\[\]]", code)
    )


def used(code: str) -> set[str]:
    """The names ``code`` uses as a package: ``name.Exported``."""
    return {m.group(1) for m in _USE.finditer(code)}


def missing_std_imports(old: str | None, new: str) -> list[str]:
    """Import paths of the standard packages ``new`` uses without importing them."""
    code = code_of(new)
    before = used(code_of(old)) - _imported(old) if old is not None else set()
    bound = _imported(new)
    wanted = sorted(
        name
        for name in used(code)
        if name in STD_PACKAGES
        and name not in bound
        and name not in before
        and not _declares(code, name)
    )
    return [STD_PACKAGES[name] for name in wanted]


def add_std_imports(old: str | None, new: str) -> tuple[str, list[str]]:
    """``new`` with the standard imports it lacks added, and those import paths."""
    paths = missing_std_imports(old, new)
    if not paths or _PACKAGE.search(new) is None:
        return new, []
    return add_imports(new, paths), paths


def _into_block(body: str, paths: list[str]) -> str:
    """``body`` (an import block's lines) with ``paths`` in its first group, each where
    gofmt's sorting by path puts it."""
    lines = body.split("\n")
    group = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    entries = [(i, m.group(2)) for i, line in enumerate(lines[:group]) if (m := _ENTRY.match(line))]
    first = lines[entries[0][0]] if entries else ""
    indent = first[: len(first) - len(first.lstrip(" \t"))] or "\t"
    for path in sorted(paths):
        after = [i for i, known in entries if known > path]
        at = after[0] if after else (entries[-1][0] + 1 if entries else 0)
        lines.insert(at, f'{indent}"{path}"')
        entries = sorted([(i + (i >= at), known) for i, known in entries] + [(at, path)])
    return "\n".join(lines)


def import_lines(text: str) -> set[int]:
    """The 0-based lines of ``text`` that its import declarations take up."""
    taken: set[int] = set()
    for m in _SPECS.finditer(text):
        first = text.count("\n", 0, m.start())
        taken.update(range(first, first + m.group(0).count("\n") + 1))
    return taken


def add_imports(text: str, paths: list[str]) -> str:
    """``text`` with ``paths`` imported: into its first import group in gofmt's order, else
    after its single-line imports, else after its package clause (``text`` has one)."""
    block = _BLOCK.search(text)
    if block is not None:
        return text[: block.start(1)] + _into_block(block.group(1), paths) + text[block.end(1) :]
    singles = list(_SINGLE.finditer(text))
    added = "".join(f'import "{p}"\n' for p in paths)
    if singles:
        end = singles[-1].end() + 1
        return text[:end] + added + text[end:]
    package = _PACKAGE.search(text)
    if package is None:
        return text
    return text[: package.end()] + "\n" + added + text[package.end() :]
