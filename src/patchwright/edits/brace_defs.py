"""The definitions of a brace language's file — Go, Rust, JavaScript and TypeScript — by name
and line span, read from the text alone: what Python gets from ``ast`` for merging a reply of
definitions (``edits.brace_merge``) and for asking about one function (``agent.task.refocus``).

A small lexer follows the brackets — ``{([`` opening, ``)]}`` closing — past comments, strings
(Go's raw strings, Rust's raw strings and its lifetimes, JavaScript's template literals and
regular expressions) and records each line's depth. A definition is a line at depth 0 (or 1,
inside a class or an ``impl`` block: a method) whose start names a function or a type; it ends
where the depth comes back down once a ``{`` has opened. The comments, attributes and
decorators right above it belong to it. A file this misreads can only make a merge fail or
produce text that the syntax gate then refuses; nothing is written past the gates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

Family = Literal["go", "rust", "javascript"]
_JS_SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
_FAMILIES: dict[str, Family] = {
    ".go": "go",
    ".rs": "rust",
    **dict.fromkeys(_JS_SUFFIXES, "javascript"),
}

_RUST_PREFIX = (
    r"(?:pub(?:\([^)]*\))?\s+)?(?:(?:default|const|async|unsafe|extern\s+\"[^\"]*\")\s+)*"
)
_JS_FUNCTION_VALUE = r"(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)"
# (family, depth) -> header patterns; group 1 is the name
_HEADERS: dict[tuple[Family, int], tuple[re.Pattern[str], ...]] = {
    ("go", 0): (
        re.compile(r"func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"),
        re.compile(r"type\s+([A-Za-z_]\w*)\s+(?:struct|interface)\b"),
    ),
    ("rust", 0): (
        re.compile(_RUST_PREFIX + r"fn\s+([A-Za-z_]\w*)"),
        re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|union|mod)\s+([A-Za-z_]\w*)"),
    ),
    ("rust", 1): (re.compile(_RUST_PREFIX + r"fn\s+([A-Za-z_]\w*)"),),
    ("javascript", 0): (
        re.compile(
            r"(?:export\s+(?:default\s+)?)?(?:declare\s+)?(?:async\s+)?"
            r"(?:function\s*\*?|(?:abstract\s+)?class)\s*([A-Za-z_$][\w$]*)"
        ),
        re.compile(
            r"(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*"
            + _JS_FUNCTION_VALUE
        ),
    ),
    ("javascript", 1): (
        re.compile(
            r"(?:(?:public|private|protected|static|async|get|set|override)\s+)*\*?"
            r"([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::[^{]+)?\{"
        ),
    ),
}
_NOT_METHODS = frozenset("if for while switch catch function return with".split())
_CONTAINERS: dict[Family, re.Pattern[str]] = {
    "go": re.compile(r"(?!)"),
    "rust": re.compile(r"(?:unsafe\s+)?impl\b|(?:pub(?:\([^)]*\))?\s+)?trait\b"),
    "javascript": re.compile(r"(?:export\s+(?:default\s+)?)?(?:abstract\s+)?class\b"),
}
_GOES_ON = ("where", "{", "->")
_LEADING = re.compile(r"(?://|/\*|\*|#\[|#!\[|@[A-Za-z_])")
_RUST_CHAR = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")
_RUST_RAW = re.compile(r'r(#*)"')
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^\n") | {""}
_LAST_WORD = re.compile(r"[A-Za-z_$][\w$]*$")
_REGEX_WORDS = frozenset("return typeof case in of delete void throw new yield await".split())


@dataclass(frozen=True)
class Span:
    """A definition: its name, its lines ``[start, stop)`` (0-based; ``start`` takes in the
    comments and attributes above its ``head`` line), its depth and indentation."""

    name: str
    start: int
    head: int
    stop: int
    depth: int
    indent: str


def family_of(path: str) -> Family | None:
    """The brace language of ``path`` by its suffix (TypeScript counts as JavaScript)."""
    return _FAMILIES.get(PurePosixPath(path).suffix.lower())


@dataclass
class _Lexer:
    text: str
    family: Family
    depth: int = 0
    i: int = 0

    def __post_init__(self) -> None:
        self.lines: list[tuple[int, bool]] = [(0, True)]  # (depth at start, starts in code)

    def run(self) -> list[tuple[int, bool]]:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            if c == "\n":
                self.lines.append((self.depth, True))
                self.i += 1
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif text.startswith("/*", self.i):
                self._skip_to(self._comment_end())
            elif c in "{([":
                self.depth += 1
                self.i += 1
            elif c in "})]":
                self.depth = max(0, self.depth - 1)
                self.i += 1
            else:
                self._skip_to(self._literal_end(c))
        return self.lines

    def _skip_to(self, end: int) -> None:
        """Past a comment or a literal: the lines it spans start outside code."""
        end = max(end, self.i + 1)
        self.lines += [(self.depth, False)] * self.text.count("\n", self.i, end)
        self.i = end

    def _comment_end(self) -> int:
        text, level, j = self.text, 0, self.i
        while j < len(text):
            if text.startswith("/*", j) and (self.family == "rust" or level == 0):
                level, j = level + 1, j + 2
            elif text.startswith("*/", j):
                level, j = level - 1, j + 2
                if level == 0:
                    return j
            else:
                j += 1
        return j

    def _literal_end(self, c: str) -> int:
        text, i, family = self.text, self.i, self.family
        if c == '"':
            return _quoted_end(text, i, '"', multiline=family == "rust")
        if c == "`" and family != "rust":
            return _quoted_end(text, i, "`", multiline=True, escapes=family == "javascript")
        if c == "'":
            if family != "rust":
                return _quoted_end(text, i, "'", multiline=False)
            char = _RUST_CHAR.match(text, i)
            return char.end() if char else i + 1  # else a lifetime
        if c == "r" and family == "rust" and not _ident_before(text, i):
            raw = _RUST_RAW.match(text, i)
            if raw:
                end = text.find('"' + raw.group(1), raw.end())
                return len(text) if end < 0 else end + 1 + len(raw.group(1))
        if c == "/" and family == "javascript" and _regex_may_start(text, i):
            return _regex_end(text, i)
        return i + 1


def _ident_before(text: str, i: int) -> bool:
    return i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")


def _quoted_end(text: str, i: int, quote: str, *, multiline: bool, escapes: bool = True) -> int:
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and escapes:
            j += 2
        elif c == quote:
            return j + 1
        elif c == "\n" and not multiline:
            return j
        else:
            j += 1
    return j


def _regex_may_start(text: str, i: int) -> bool:
    """A ``/`` that begins a regular expression, not a division: after an operator, an
    opening bracket or a keyword such as ``return``."""
    before = text[:i].rstrip(" \t")
    if before[-1:] in _REGEX_BEFORE:
        return True
    word = _LAST_WORD.search(before)
    return word is not None and word.group(0) in _REGEX_WORDS


def _regex_end(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text) and text[j] != "\n":
        c = text[j]
        if c == "\\":
            j += 1
        elif c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            return j + 1
        j += 1
    return i + 1  # no closing slash on the line: a division after all


def _end(lines: list[str], marks: list[tuple[int, bool]], head: int, depth: int) -> int:
    """The line after the definition that starts at ``head``: where the depth is back at
    ``depth`` once a body has opened (or at once, for one without a body)."""
    opened = where = False
    for k in range(head + 1, len(lines) + 1):
        opened = opened or "{" in lines[k - 1]
        where = (where or lines[k - 1].lstrip().startswith("where")) and not opened
        if k == len(lines) or (marks[k][0] <= depth and marks[k][1]):
            continuing = lines[k - 1].rstrip().endswith(("(", ",", "=>", "=", "+", "&&", "||"))
            # a signature that goes on below: Rust's ``where`` clause, a brace on its own line
            below = lines[k].lstrip() if k < len(lines) else ""
            continuing = continuing or where or below.startswith(_GOES_ON)
            if opened or not continuing or k == len(lines):
                return k
    return len(lines)


def _start(lines: list[str], marks: list[tuple[int, bool]], head: int, depth: int) -> int:
    """The first of the comment, attribute and decorator lines right above ``head``; a
    blank line inside a block comment does not end it (HumanEvalFix JavaScript-12's comment
    has one after `>>> longest([])`: its first lines, the spec, were cut off)."""
    start = head
    while start > 0 and marks[start - 1][0] == depth:
        above = lines[start - 1].strip()
        in_comment = not marks[start - 1][1]
        if not in_comment and not (above and _LEADING.match(above)):
            break
        start -= 1
    return start


def definitions(path: str, text: str) -> list[Span]:
    """The functions and types of ``text`` (the file ``path``) at the top level, and the
    methods of its classes and ``impl`` blocks, in order; empty for other languages."""
    family = family_of(path)
    if family is None:
        return []
    lines = text.split("\n")
    marks = _Lexer(text, family).run()
    found: list[Span] = []
    container_until = -1  # a class or impl block at depth 0 reaches up to this line
    for n, line in enumerate(lines):
        depth, in_code = marks[n]
        body = line.lstrip()
        if not in_code or depth > 1 or not body or (depth == 1 and n >= container_until):
            continue
        if depth == 0 and _CONTAINERS[family].match(body):
            container_until = _end(lines, marks, n, 0)
        for pattern in _HEADERS.get((family, depth), ()):
            m = pattern.match(body)
            if m and m.group(1) not in _NOT_METHODS:
                indent = line[: len(line) - len(body)]
                start = _start(lines, marks, n, depth)
                found.append(
                    Span(m.group(1), start, n, _end(lines, marks, n, depth), depth, indent)
                )
                break
    return found


def span_text(text: str, span: Span, *, leading: bool = True) -> str:
    """The lines of ``span`` in ``text`` (from its head only, without ``leading``)."""
    lines = text.split("\n")
    return "\n".join(lines[span.start if leading else span.head : span.stop])


def statement_at(path: str, text: str, line: int) -> str:
    """The statement that begins on the 1-based ``line`` of ``text``, through its closing
    bracket (a JavaScript ``test(...)`` call, say); empty for other languages."""
    family = family_of(path)
    lines = text.split("\n")
    if family is None or not 0 < line <= len(lines):
        return ""
    marks = _Lexer(text, family).run()
    return "\n".join(lines[line - 1 : _end(lines, marks, line - 1, marks[line - 1][0])])


def body_lines(path: str, text: str, span: Span) -> tuple[int, int] | None:
    """The lines ``[first, stop)`` of ``span``'s body, strictly inside its braces — when its
    ``{`` ends a line and its ``}`` starts one; else None (a one-line function, say)."""
    family = family_of(path)
    if family is None:
        return None
    lines = text.split("\n")
    marks = _Lexer(text, family).run()
    last = span.stop - 1
    if not lines[last].strip().startswith("}"):
        return None
    for n in range(span.head, last):
        code = lines[n].split("//")[0].rstrip() if marks[n][1] else ""
        if code.endswith("{") and marks[n + 1][0] == span.depth + 1:
            return (n + 1, last) if n + 1 < last else None
    return None
