"""Types and functions a Go change declares again in one file of a package when another file
of that package already declares them.

A Go package declares each name once across all its files. Exercism's Go exercises keep the
interfaces in a file of their own (``interfaces.go``, ``defs.go``, ``common.go``) beside the
file to implement, and a small model shown both copies the interfaces into the file it sends
back: ``Reactor redeclared in this block``, and ``go vet`` does not say where the other one is.
Polyglot go-react failed all four attempts on that one error, each reply copying
``interfaces.go`` again. The build can never take both, and the other file is the one the
task did not ask to change, so a declaration the change adds under a name another file of the
package declares is left out, with a note that names the file that keeps it. A test file of
the same package counts too, as ``go test`` and ``go vet`` build it with the package: paasio's
tests declare a ``nopWriter``, replies copied it, and ``nopWriter redeclared`` pointed at the
read-only test file three times. A reply that sends the other file back too (go-react's
second attempt rewrote ``interfaces.go`` as well) leaves that file the names it declared
before and still declares.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from patchwright.edits.brace_defs import Span, definitions
from patchwright.edits.go_unused import drop_imports, unused_imports, without_spans

_PACKAGE = re.compile(r"^package\s+(\w+)", re.M)
_DECLARED = re.compile(r"\s*(?:type\s+(\w+)\s+(?:struct|interface)\b|func\s+(\w+)\s*[\[(])")


def _declarations(path: str, text: str) -> dict[str, Span]:
    """The package-level types and functions (not methods) of ``text``, by name."""
    lines = text.split("\n")
    found: dict[str, Span] = {}
    for span in definitions(path, text):
        m = _DECLARED.match(lines[span.head]) if span.depth == 0 else None
        if m is not None and (name := m.group(1) or m.group(2)) != "init":
            found.setdefault(name, span)
    return found


def in_package(path: str, other: str) -> bool:
    """``other`` is another Go file in ``path``'s directory (its package, or the package's
    external tests: ``_package_of`` tells them apart)."""
    return (
        other != path
        and other.endswith(".go")
        and posixpath.dirname(other) == posixpath.dirname(path)
    )


def _package_of(text: str) -> str | None:
    m = _PACKAGE.search(text)
    return m.group(1) if m else None


def drop_redeclared(
    path: str, old: str | None, new: str, others: Mapping[str, tuple[str | None, str]]
) -> tuple[str, list[str]]:
    """``new`` without the declarations the change adds to ``path`` (a non-test Go file)
    whose names another file of the package declared before the change and still declares
    (``others``: path → its text before and after; the same text twice where unchanged),
    and a note."""
    if not path.endswith(".go") or path.endswith("_test.go"):
        return new, []
    had = set(_declarations(path, old)) if old is not None else set()
    elsewhere: dict[str, str] = {}
    package = _package_of(new)
    for other, (before, after) in sorted(others.items()):
        if in_package(path, other) and before is not None and _package_of(after) == package:
            kept = set(_declarations(other, after))
            if before != after:  # a file the same change rewrote: only what it had before
                kept &= _declarations(other, before).keys()
            for name in kept:
                elsewhere.setdefault(name, other)
    added = [
        (name, span)
        for name, span in _declarations(path, new).items()
        if name in elsewhere and name not in had
    ]
    if not added:
        return new, []
    new = without_spans(new, [span for _, span in added])
    by_file: dict[str, list[str]] = {}
    for name, _ in added:
        by_file.setdefault(elsewhere[name], []).append(name)
    said = "; ".join(f"{f} declares {', '.join(names)}" for f, names in by_file.items())
    notes = [
        f"{path}: left out {', '.join(name for name, _ in added)} ({said} already; a Go "
        "package declares each name once, so they stay there)"
    ]
    unused = unused_imports(old, new)  # what only the copies used
    if unused:
        new = drop_imports(new, unused)
        names = ", ".join(f'"{import_path}"' for _, import_path in unused)
        notes.append(f"{path}: removed the import of {names} (only what was left out used it)")
    return new, notes
