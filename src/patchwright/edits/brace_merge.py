"""A reply of definitions for a Go, Rust, JavaScript or TypeScript file, read as those
definitions changed — what ``edits.dropped`` does for Python with ``ast``.

Asked for the one function at fault (the one-function retry) or for a whole file, a small
model sends back the function alone. Each definition of such a reply replaces its namesake
— a top-level function or type of the file, else the one method of that name in a class or
``impl`` block, indented as it was — and new names are appended. The rest of the reply must
already be in the file, except imports, which are added: Go's into its import block as
gofmt orders it (``go_imports``), Rust's ``use`` and JavaScript's ``import`` or ``require``
lines after the file's own. A Go method is known by its receiver's type and its name (a type
``Error`` and its method ``Error`` are two definitions). A definition whose name the file
holds twice cannot be placed, and the reply is then not merged.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from patchwright.edits.brace_defs import Family, Span, definitions, family_of
from patchwright.edits.go_imports import add_imports, import_lines, import_specs
from patchwright.edits.splice import spliced

_IMPORT: dict[Family, re.Pattern[str]] = {
    "go": re.compile(r"(?!)"),  # Go's imports are read whole, by go_imports
    "rust": re.compile(r"(?:pub\s+)?use\s+[^;]+;\s*$"),
    "javascript": re.compile(
        r"import\s[^;]*\bfrom\s*['\"][^'\"]+['\"];?\s*$|import\s*['\"][^'\"]+['\"];?\s*$"
        r"|(?:const|let|var)\s+[^=]+=\s*require\(\s*['\"][^'\"]+['\"]\s*\);?\s*$"
    ),
}
_PACKAGE = re.compile(r"^package\s+\w+", re.M)
# a Go method's head: its receiver's type (generic or not, pointer or not), then its name
_GO_METHOD = re.compile(r"func\s*\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*(\w+)")
_COMMENT = re.compile(r"\s*(?://|/\*|\*)")


def _name(span: Span) -> str:
    return span.name


def _top(spans: list[Span]) -> list[Span]:
    return [s for s in spans if s.depth == 0]


def dropped(path: str, old: str, new: str) -> list[str]:
    """Top-level functions and types of ``old`` that ``new`` no longer defines (none when
    ``new`` defines nothing: it is not code of this language)."""
    after = definitions(path, new)
    if not after:
        return []
    kept = {s.name for s in after}
    return list(dict.fromkeys(s.name for s in _top(definitions(path, old)) if s.name not in kept))


def lacks_package_clause(path: str, old: str, new: str) -> bool:
    """A Go reply without the package clause its file has: the functions alone, not a file."""
    return family_of(path) == "go" and bool(_PACKAGE.search(old)) and not _PACKAGE.search(new)


def _places(spans: list[Span], key: Callable[[Span], str] = _name) -> dict[str, Span | None]:
    """Where a definition of a reply goes, by ``key`` (its name): the top-level definition
    of that name, else the one method of that name; None for a name held twice (no place)."""
    where: dict[str, Span | None] = {}
    for depth in (1, 0):  # a top-level name wins over a method's
        level = [s for s in spans if s.depth == depth]
        names = [key(s) for s in level]
        where.update({key(s): s if names.count(key(s)) == 1 else None for s in level})
    return where


def _go_key(lines: list[str]) -> Callable[[Span], str]:
    """A Go definition's key: a method's is ``Receiver.Name`` (``type Error struct`` and
    ``func (e *Error) Error()`` are two definitions, and so are two types' ``String``)."""

    def key(span: Span) -> str:
        m = _GO_METHOD.match(lines[span.head].lstrip())
        return f"{m[1]}.{m[2]}" if m else span.name

    return key


def replaceable(path: str, text: str) -> set[str]:
    """The names a reply's definitions can replace in ``text`` (see ``merge``)."""
    return {name for name, span in _places(definitions(path, text)).items() if span}


def _outside(lines: list[str], spans: list[Span], skip: set[int]) -> list[int]:
    """The lines of code no definition of ``spans`` takes up (not blank, not comments)."""
    taken = set(skip)
    for s in spans:
        taken.update(range(s.start, s.stop))
    return [
        n for n, line in enumerate(lines)
        if n not in taken and line.strip() and not _COMMENT.match(line)
    ]  # fmt: skip


def _reindented(lines: list[str], old_indent: str, new_indent: str) -> list[str]:
    out = []
    for line in lines:
        body = line[len(new_indent) :] if line.startswith(new_indent) else line.lstrip()
        out.append(old_indent + body if body.strip() else "")
    return out


def _imports_added(family: Family, merged: str, old: str, new: str, wanted: list[str]) -> str:
    """``merged`` with the reply's imports that ``old`` lacks."""
    if family == "go":
        have = {p for _, p in import_specs(old)}
        paths = [p for _, p in import_specs(new) if p not in have]
        return add_imports(merged, list(dict.fromkeys(paths))) if paths else merged
    if not wanted:
        return merged
    lines = merged.split("\n")
    pattern = _IMPORT[family]
    at = max((n + 1 for n, line in enumerate(lines) if pattern.match(line)), default=0)
    return "\n".join([*lines[:at], *wanted, *lines[at:]])


def merge(path: str, old: str, new: str) -> str | None:
    """``old`` with each definition of ``new`` in place of its namesake (new names
    appended, the reply's imports added), when the rest of ``new`` is already in ``old``;
    else None."""
    family = family_of(path)
    replies = _top(definitions(path, new)) if family else []
    if family is None or not replies:
        return None
    new_lines, old_lines = new.split("\n"), old.split("\n")
    skip = import_lines(new) if family == "go" else set()
    wanted: list[str] = []
    for n in _outside(new_lines, replies, skip):
        line = new_lines[n].strip()
        if _IMPORT[family].match(line) and line not in old:
            wanted.append(line)
        elif line not in old:
            return None
    old_key, new_key = (_go_key(old_lines), _go_key(new_lines)) if family == "go" else (_name,) * 2
    where = _places(definitions(path, old), old_key)
    replacements: dict[int, tuple[int, list[str]]] = {}
    appended: list[str] = []
    for span in replies:
        text = new_lines[span.start : span.stop]
        if new_key(span) not in where:
            appended += ["", *text]
            continue
        place = where[new_key(span)]
        if place is None:
            return None
        first = place.start if span.start < span.head else place.head
        replacements[first] = (place.stop, _reindented(text, place.indent, span.indent))
    out = spliced(old_lines, replacements)
    merged = "\n".join(out)
    if appended:
        merged = merged.rstrip("\n") + "\n" + "\n".join(appended)
    merged = _imports_added(family, merged, old, new, wanted)
    return merged if merged.endswith("\n") else merged + "\n"
