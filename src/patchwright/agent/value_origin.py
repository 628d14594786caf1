"""Where the code writes the string a failed check got.

HumanEvalFix Go-118's function returns ``" "`` where it means ``""``; testify says
``expected: "" actual : " "`` on seven lines, and a 1.5B model rewrote the loop four times and
kept both ``return " "``. Go-119 returns ``"yes"`` where the tests want ``"Yes"``. The value
is written in the code, word for word; saying where takes the reader straight to the line::

    The test got `" "` where it expected `""`; the code writes `" "` here:
    - main.go:22: `return " "`
    - main.go:32: `return " "`

Only string values (a number is written in too many places that have nothing to do with it),
only where the code writes the value on a few lines (:data:`MOST_LINES`) and not the expected
one, and never in a comment, a docstring, or a doctest; a variant holding a value
(``Float(0.0)``) likewise (:mod:`patchwright.agent.variant_origin`). Failing that, in a small
change or repository, the line that builds a string of the form got (``fmt.Sprintf("db%bd", n)``,
``"db" + x + "d"``: :mod:`patchwright.agent.value_form`), or that writes a piece of it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from patchwright.agent.searched_code import MOST_LINES, searched_text
from patchwright.agent.value_form import forms, literal_spans
from patchwright.agent.variant_origin import where_variant_written

MOST_VALUES = 2
FRAGMENT_FILES = 5  # part of a value is looked for in this many files at most
_STR = r"(\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
# (expected, got): testify, jest, the "expected …, got …" of hand-written messages
_EXPECTED_FIRST = (
    re.compile(rf"expected: {_STR}\s+actual\s*: {_STR}"),
    re.compile(rf"Expected: {_STR}\s*\n\s*Received: {_STR}"),
    re.compile(rf"\b[Ee]xpected:? {_STR},?(?: but)? got:? {_STR}"),
)
# (got, expected): node's strictEqual, Go's `f(x) = "a", want "b"` and "got …, want …"
_GOT_FIRST = (
    re.compile(rf"^\s*{_STR} !== {_STR}\s*$", re.M),
    re.compile(rf"(?:\bgot:?| =) {_STR},? want:? {_STR}"),
)
# sides not named: Rust's left/right, pytest's `assert a == b`, unittest's `a != b`, the
# JavaScript value probe
_SIDES = (
    re.compile(rf"left: {_STR}\s*\n\s*right: {_STR}"),
    re.compile(rf"\bassert {_STR} == {_STR}"),
    re.compile(rf"AssertionError: {_STR} != {_STR}"),
    re.compile(rf"left `{_STR}`, right `{_STR}`"),
)
# a list of one string (Go's slice, Rust's vector or array, Python's and JavaScript's list)
_ONE_STRING = re.compile(rf"(?:\[\]string\{{|\[){_STR}(?:\}}|\])")
_COMMENT = ("//", "#", "/*", "*", "--", ">>>")


@dataclass(frozen=True)
class _Pair:
    got: str  # the value, quoted as the report printed it
    other: str
    named: bool  # the report says `got` is what the test got


def where_written(
    report: str, code: Mapping[str, str | None], tests: Mapping[str, str | None] | None = None
) -> str:
    """For each string a failed check in ``report`` got that the ``code`` (path → text)
    writes on a few lines, and the expected one it does not write: a line saying so, and those
    lines quoted (where the code writes both, as `return "Yes"` and `return "No"`, what is
    wrong is which it returns, not the value: HumanEvalFix Go-141). Where the report does not
    say which side is which, the side the ``tests`` write is the one expected; when they
    write neither or both, either side may be the one got. Lines already quoted for one value
    are not quoted again for the next. "" when there is none."""
    blocks: list[str] = []
    seen: set[str] = set()
    quoted: set[str] = set()
    for found_pair in _pairs(report):
        pair = _oriented(found_pair, tests or {})
        if pair is None or pair.got in seen or len(blocks) == MOST_VALUES:
            continue
        seen.add(pair.got)
        block = _whole(pair, code)
        if not block and pair.named and len(code) <= FRAGMENT_FILES:
            block = _formed(pair, code) or _fragment(pair, code)
        lines = block.partition("\n")[2]
        if block and lines not in quoted:
            quoted.add(lines)
            blocks.append(block)
    variants = where_variant_written(report, code, tests)
    return "\n".join([*blocks, *variants][:MOST_VALUES])


def _whole(pair: _Pair, code: Mapping[str, str | None]) -> str:
    found = _written(_content(pair.got), code)
    if not found or len(found) > MOST_LINES:
        return ""
    other_content = _content(pair.other)
    if any(_as_value(line, other_content) for _, _, line in _written(other_content, code)):
        return ""  # it writes both (`return "Yes"`, `return "No"`): the choice is wrong
    got, other = _shown(pair.got), _shown(pair.other)
    head = (f"The test got {got} where it expected {other}" if pair.named
            else f"The failed check compared {got} with {other}")  # fmt: skip
    return "\n".join([f"{head}; the code writes {got} here:", *_quoted(found)])


def _formed(pair: _Pair, code: Mapping[str, str | None]) -> str:
    """The lines (a few) that build a string of the form of the value got and not of the one
    expected: Go-79 got `"db1111d"` for `"db1111db"` from `fmt.Sprintf("db%bd", decimal)`."""
    got, other = _content(pair.got), _content(pair.other)
    if got is None or other is None:
        return ""
    found = [(path, n, line) for path, text in sorted(code.items())
             for n, line in _code_lines(path, text)
             if any(f.fullmatch(got) and not f.fullmatch(other) for f in forms(line))]  # fmt: skip
    if not found or len(found) > MOST_LINES:
        return ""
    return "\n".join([
        f"The test got {_shown(pair.got)} where it expected {_shown(pair.other)}; the code "
        "builds a string of the form of the value got, and not of the one expected, here:",
        *_quoted(found),
    ])  # fmt: skip


def _fragment(pair: _Pair, code: Mapping[str, str | None]) -> str:
    """The longest string the code writes (on a few lines) that the value got holds and the
    one expected does not: Rust-118 got `" u"` for `"u"` from `let mut out = " ".to_string()`,
    Python-28 `"x y z"` for `"xyz"` from `' '.join(strings)`."""
    got, other = _content(pair.got), _content(pair.other)
    if got is None or other is None:
        return ""
    places: dict[str, list[tuple[str, int, str]]] = {}
    for path, text in sorted(code.items()):
        for n, line in _code_lines(path, text):
            for written in _literals(line) - {got}:
                if written and written in got and written not in other:
                    places.setdefault(written, []).append((path, n, line))
    few = [x for x in places.items() if len(x[1]) <= MOST_LINES]
    if not few:
        return ""
    written, found = max(few, key=lambda x: len(x[0]))
    quote = pair.got[0]
    return "\n".join([
        f"The test got {_shown(pair.got)} where it expected {_shown(pair.other)}; the code "
        f"writes `{quote}{written}{quote}`, which the value got holds and the one expected "
        "does not, here:",
        *_quoted(found),
    ])  # fmt: skip


def _quoted(found: list[tuple[str, int, str]]) -> list[str]:
    return [f"- {path}:{n}: `{text}`" for path, n, text in found]


def _oriented(pair: _Pair, tests: Mapping[str, str | None]) -> _Pair | None:
    """``pair`` named when the tests write its other side and not its own; None when they
    write its own side and not the other (then it is the side expected)."""
    if pair.named or not tests:
        return pair
    own, other = (bool(_written(_content(x), tests)) for x in (pair.got, pair.other))
    if own == other:
        return pair
    return _Pair(pair.got, pair.other, named=True) if other else None


def _pairs(report: str) -> Iterator[_Pair]:
    report = _ONE_STRING.sub(r"\1", report)  # `[]string{"a"}` against `[]string{"b"}`
    for pattern in _EXPECTED_FIRST:
        for m in pattern.finditer(report):
            yield _Pair(m[2], m[1], named=True)
    for pattern in _GOT_FIRST:
        for m in pattern.finditer(report):
            yield _Pair(m[1], m[2], named=True)
    for pattern in _SIDES:
        for m in pattern.finditer(report):
            yield _Pair(m[1], m[2], named=False)
            yield _Pair(m[2], m[1], named=False)


def _content(quoted: str) -> str | None:
    """What a quoted value holds, or None when it holds an escape or a quote (then how the
    code spells it cannot be told from how the report printed it)."""
    inner = quoted[1:-1]
    return None if any(c in inner for c in "\\\"'`") else inner


def _shown(quoted: str) -> str:
    return f"`{quoted}`" if "`" not in quoted else quoted


def _written(content: str | None, code: Mapping[str, str | None]) -> list[tuple[str, int, str]]:
    """``(path, line number, line)`` for each line of ``code`` outside comments and docstrings
    holding a string literal that is ``content`` exactly."""
    if content is None:
        return []
    found: list[tuple[str, int, str]] = []
    for path, text in sorted(code.items()):
        if text is None or not any(f"{q}{content}{q}" in text for q in "\"'`"):
            continue
        found += [(path, n, line) for n, line in _code_lines(path, text)
                  if content in line and content in _literals(line)]  # fmt: skip
        if len(found) > MOST_LINES:
            break
    return found


def _code_lines(path: str, text: str | None) -> Iterator[tuple[int, str]]:
    """The numbered lines of a file, stripped, that may write a string: not in a comment, a
    docstring or a doctest, and not a line that is one string alone (a doctest's output)."""
    text = searched_text(path, text)
    if text is None:
        return
    skipped = _docstring_lines(text) if path.endswith(".py") else set()
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if n in skipped or stripped.startswith(_COMMENT) or not any(q in line for q in "\"'`"):
            continue
        quote = stripped[:1]
        if not (len(stripped) > 1 and stripped[-1] == quote and quote not in stripped[1:-1]):
            yield n, stripped


_COMPARED = ("==", "!=", "<", ">")
_ARROWS = ("=>", "->")  # what comes after these is a value: `(c) => 'u'`


def _as_value(line: str, content: str | None) -> bool:
    """Whether ``line`` writes a literal holding ``content`` as a value, not only as what
    something is compared with (JavaScript-118's `word[i] != 'u'` beside `return ' '`)."""
    for start, end in literal_spans(line):
        if line[start + 1 : end - 1] != content:
            continue
        before, after = line[:start].rstrip(), line[end:].lstrip()
        compared = before.endswith(_COMPARED) and not before.endswith(_ARROWS)
        if not (compared or after.startswith(_COMPARED)):
            return True
    return False


def _literals(line: str) -> set[str]:
    """What each string literal on ``line`` holds, up to a ``//`` or ``#`` comment."""
    return {line[start + 1 : end - 1] for start, end in literal_spans(line)}


def _docstring_lines(text: str) -> set[int]:
    """The line numbers of a Python file's docstrings (none when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0] if node.body else None
        if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
            continue
        if isinstance(first.value.value, str) and first.end_lineno is not None:
            lines.update(range(first.lineno, first.end_lineno + 1))
    return lines
