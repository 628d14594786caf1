"""What a Go change leaves behind that the build refuses: imports it no longer uses, and test
functions written into a file that is not a test file.

Go refuses to build a file that imports a package it does not use. A small model that
rewrites a function without ``strings.Builder`` leaves ``import "strings"`` above it, and the
build fails with ``imported and not used`` — which a 1.5B model, shown the error, answers
with the same function again (HumanEvalFix Go-10 and Go-11: every attempt after the first
failed on the import alone). goimports, and every Go editor on save, removes such an import;
so does this module, for the imports the change made unused (the file used them before) and
the ones the change itself added without using them. An import the file already left unused,
a blank (``_``) or dot import, and ``import "C"`` are never touched.

Shown the failing test, a small model sometimes sends it back with the function, and the
test lands in ``main.go`` beside its original in ``main_test.go``: ``TestFib4 redeclared in
this block`` (Go-46, Go-63). ``go test`` never runs a test function outside a ``_test.go``
file, so one that the change adds to such a file is left out.
"""

from __future__ import annotations

import re

from patchwright.edits.brace_defs import Span, definitions
from patchwright.edits.go_imports import STD_PACKAGES, code_of, import_lines, import_specs, used

_STD_PATHS = frozenset(STD_PACKAGES.values()) | {"testing"}
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_VERSION = re.compile(r"v\d+")
_TEST_HEAD = re.compile(r"func\s+Test\w*\s*\(\s*\w+\s+\*testing\.T\s*\)")
_IMPORT_LINE = re.compile(r'^\s*(?:import\s+)?(?:([\w.]+)\s+)?"([^"]+)"\s*(?://.*)?$')
_EMPTY_BLOCK = re.compile(r"^import\s*\(\s*\)[ \t]*\n", re.M)

Spec = tuple[str, str]


def _bound(spec: Spec) -> str:
    alias, path = spec
    return alias or path.rsplit("/", 1)[-1]


def _removable(spec: Spec, before: list[Spec]) -> bool:
    """An import this module may take out: a standard package, or one the change added
    whose name is known from its path (not ``gopkg.in/yaml.v3``, not ``…/v2``)."""
    alias, path = spec
    if alias in ("_", ".") or path == "C":
        return False
    if path in _STD_PATHS:
        return True
    name = _bound(spec)
    return spec not in before and bool(_NAME.fullmatch(name)) and not _VERSION.fullmatch(name)


def unused_imports(old: str | None, new: str) -> list[Spec]:
    """The imports of ``new`` it does not use that the change made unused or added."""
    before = import_specs(old) if old is not None else []
    used_before = used(code_of(old)) if old is not None else set()
    now = used(code_of(new))
    return [
        spec
        for spec in import_specs(new)
        if _bound(spec) not in now
        and _removable(spec, before)
        and not (spec in before and _bound(spec) not in used_before)
    ]


def _without_lines(lines: list[str], drop: set[int]) -> list[str]:
    """``lines`` less ``drop``, and less a blank line that would then follow another."""
    kept: list[str] = []
    for n, line in enumerate(lines):
        if n in drop:
            continue
        if not line.strip() and kept and not kept[-1].strip() and n - 1 in drop:
            continue
        kept.append(line)
    return kept


def drop_imports(text: str, specs: list[Spec]) -> str:
    """``text`` without the import lines of ``specs`` (an emptied block goes whole)."""
    lines = text.split("\n")
    drop = set()
    for n in sorted(import_lines(text)):
        m = _IMPORT_LINE.match(lines[n])
        if m and (m.group(1) or "", m.group(2)) in specs:
            drop.add(n)
    out = "\n".join(_without_lines(lines, drop))
    emptied = _EMPTY_BLOCK.search(out)
    if emptied is None:
        return out
    rest = out[emptied.end() :]
    return out[: emptied.start()] + (rest[1:] if rest.startswith("\n") else rest)


def added_tests(path: str, old: str | None, new: str) -> list[Span]:
    """The test functions the change adds to ``path``, a Go file that is not a test file."""
    if not path.endswith(".go") or path.endswith("_test.go"):
        return []
    had = {span.name for span in definitions(path, old)} if old is not None else set()
    lines = new.split("\n")
    return [
        span
        for span in definitions(path, new)
        if span.depth == 0 and span.name not in had and _TEST_HEAD.match(lines[span.head])
    ]


def without_spans(text: str, spans: list[Span]) -> str:
    """``text`` without the lines of ``spans``."""
    drop = {n for span in spans for n in range(span.start, span.stop)}
    return "\n".join(_without_lines(text.split("\n"), drop))


def tidy(path: str, old: str | None, new: str) -> tuple[str, list[str]]:
    """``new`` without the test functions it adds to a non-test file and the imports it
    leaves unused, and a note for each thing taken out."""
    notes: list[str] = []
    tests = added_tests(path, old, new)
    if tests:
        new = without_spans(new, tests)
        names = ", ".join(span.name for span in tests)
        notes.append(f"{path}: left out {names} (a test function outside a "
                     "_test.go file; go test never runs it there)")  # fmt: skip
    unused = unused_imports(old, new)
    if unused:
        new = drop_imports(new, unused)
        names = ", ".join(f'"{path_}"' for _, path_ in unused)
        notes.append(f"{path}: removed the import of {names} (the file no longer uses it)")
    return new, notes
