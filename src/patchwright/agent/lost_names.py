"""A change that deleted what the code still uses.

When a compiler, linter or test says a name is undefined and the rejected change removed the
line that defined it, the repair prompt says so: "Your change removed `x := …` from main.go,
which defined `x`". A small model told only ``undefined: current_string`` deleted the same
declaration again in three repairs running (HumanEvalFix Go-1); the line it lost is what it
needs to see.

The same holds for the line that links a test module in Rust: a whole-file reply that drops
``mod tests;`` (or writes a module of its own in its place) leaves ``src/tests.rs`` uncompiled,
and the task's tests no longer run. Aider's Rust-2 reply did exactly that and its
``cargo test`` passed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# what each toolchain says of a name it cannot find
_UNDEFINED = [
    re.compile(r"undefined: (\w+)"),  # go build, go vet
    re.compile(r"[Uu]ndefined name [`'\"](\w+)[`'\"]"),  # ruff / pyflakes F821
    re.compile(r"name '(\w+)' is not defined"),  # Python's NameError
    re.compile(r"cannot find (?:value|function|type|struct|macro) `(\w+)`"),  # rustc
    re.compile(r"Cannot find name '(\w+)'"),  # tsc
    re.compile(r"ReferenceError: (\w+) is not defined"),  # node
    re.compile(r"'(\w+)' is not defined"),  # eslint no-undef
]
_KEYWORDS = r"(?:def|class|func|fn|function|let(?:\s+mut)?|var|const|type|struct|enum|static)"
MAX_NOTES = 3


# rustc says which kind of name it could not find: only a `fn` or a closure defines a function
_RUST_FUNCTION = re.compile(r"cannot find function `(\w+)`")


def undefined_names(report: str) -> list[str]:
    """The names ``report`` says are undefined, first mention first."""
    found: dict[str, None] = {}
    for line in report.splitlines():
        for pattern in _UNDEFINED:
            for match in pattern.finditer(line):
                found.setdefault(match.group(1))
    return list(found)


def _defines(line: str, name: str, function: bool) -> bool:
    """Whether ``line`` defines ``name``: after a defining keyword, or assigned to — a
    ``function`` rustc cannot find, only by a `fn` or a closure."""
    word = re.escape(name)
    if function:
        closure = rf"\blet\s+(?:mut\s+)?{word}\s*(?::[^=]*)?=\s*(?:move\s*)?\|"
        return bool(re.search(rf"\bfn\s+{word}\b|{closure}", line))
    return bool(
        re.search(rf"\b{_KEYWORDS}\s+{word}\b", line)
        or re.match(rf"\s*{word}\s*(?::=|=(?!=)|:[^=\n]*=(?!=))", line)
    )


def lost_definitions(
    report: str, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> list[str]:
    """A note for each name ``report`` calls undefined whose defining line the change from
    ``before`` to ``after`` (path → text; None: no such file) removed."""
    notes: list[str] = []
    functions = set(_RUST_FUNCTION.findall(report))
    for name in undefined_names(report):
        function = name in functions
        for path in sorted(after):
            old = before.get(path)
            if old is None:
                continue
            kept = set((after[path] or "").splitlines())
            gone = [x for x in old.splitlines() if x not in kept and _defines(x, name, function)]
            if gone:
                notes.append(
                    f"Your change removed `{gone[0].strip()}` from {path}, which defined "
                    f"`{name}`; the code still uses `{name}`. Keep that line."
                )
                break
        if len(notes) == MAX_NOTES:
            break
    return notes


_RUST_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def lost_test_modules(
    report: str, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> list[str]:
    """A note for each Rust ``mod NAME;`` the change removed where ``report`` names a test in
    that module (``src/lib.rs::tests::…``) — the line that compiled the task's tests."""
    notes: list[str] = []
    for path in sorted(after):
        old = before.get(path)
        if old is None or not path.endswith(".rs"):
            continue
        kept = set((after[path] or "").splitlines())
        for line in old.splitlines():
            match = _RUST_MOD.match(line)
            if match and line not in kept and f"::{match.group(1)}::" in report:
                notes.append(
                    f"Your change removed `{line.strip()}` from {path}: that line compiles "
                    f"the `{match.group(1)}` module, the tests the task must pass, so they no "
                    "longer ran. Keep that line as it is."
                )
    return notes[:MAX_NOTES]
