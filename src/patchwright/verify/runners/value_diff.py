"""Where an expected and an actual value part, for the long values a small model reads past.

testify's ``Not equal: expected: []string{"… str4ng 4 of the 4nput."} actual : []string{"…
str4ng 4 of 4 the 4nput."}`` and Rust's ``left:``/``right:`` print both values whole;
pytest points at the difference, these do not. A 1.5B model read such a pair for HumanEvalFix
Go-113 four times and never saw the stray ``4``: it rewrote the arguments instead. So for a
pair of long values the runners add one line saying what stands where they part::

    they part after `…str4ng 4 of `: actual has `4 ` there, expected has not

Values that differ only in whitespace get the line however short they are, the whitespace
named in words (Go-118: ``expected: "" actual : " "``, four attempts kept ``return " "``);
so do values that differ only in letter case (Go-119: ``"Yes"`` and ``"yes"``, four times),
and Go's empty slice or map against a nil one (``[]string{}`` and ``[]string(nil)``).
"""

from __future__ import annotations

import re

SHORT = 24  # values this short are read at a glance: no line
SHARED = 10  # unless they share this much and one is the other with a piece added
CONTEXT = 16  # characters shown of what the two share before they part
SHOWN = 40  # characters shown of each side's own part

_SIDES = re.compile(r"^\s*(left|right): (.*)$", re.M)
_TESTIFY = re.compile(r"Not equal: expected: (?P<expected>.+?) actual\s*: (?P<actual>.+)$")


def where_they_part(
    expected: str, actual: str, names: tuple[str, str] = ("expected", "actual")
) -> str | None:
    """The line saying where ``expected`` and ``actual`` part (called ``names``), or None
    when both are short, equal, or share nothing at their start to point from; two lists of
    the same items in another order say that first."""
    if expected == actual:
        return None
    if nil := _nil_or_empty(expected, actual, names):
        return nil
    moved = _reordered(expected, actual, names)
    part = _parting(expected, actual, names)
    return f"{moved}; {part}" if moved and part else moved or part


def _parting(expected: str, actual: str, names: tuple[str, str]) -> str | None:
    """Where the two part, or None (see :func:`where_they_part`)."""
    blank = "".join(expected.split()) == "".join(actual.split())  # `""` and `" "` look alike
    if expected.lower() == actual.lower():  # `"Yes"` and `"yes"` too
        return f"they differ only in letter case: {names[0]} `{expected}`, {names[1]} `{actual}`"
    start = _whole_number(expected, actual, _shared(expected, actual), sign="-")
    if start < (0 if blank else 2):
        return None
    room = min(len(expected), len(actual)) - start
    backwards = expected[::-1], actual[::-1]
    end = min(_whole_number(*backwards, _shared(*backwards)), room)
    # short values are read at a glance, unless one is the other with a piece added (Go-153's
    # `"Watashi.eIGHt8OKe"` and `"WatashieIGHt8OKe"`: a `.` is easily read past)
    short = max(len(expected), len(actual)) < SHORT and not blank
    if short and (end < room or start + end < SHARED or _number(expected) or _number(actual)):
        return None
    before = expected[max(0, start - CONTEXT) : start]
    own = (expected[start : len(expected) - end], actual[start : len(actual) - end])
    expected_own, actual_own = (_shown(x) for x in own)
    lead = f" after `{'…' if start > CONTEXT else ''}{before}`" if before else " at the start"
    where = f"they part{lead}"
    first, second = names
    if not own[0]:
        return f"{where}: {second} has {actual_own} there, {first} has not"
    if not own[1]:
        return f"{where}: {first} has {expected_own} there, {second} has not"
    return f"{where}: {first} {expected_own}, {second} {actual_own}"


_NIL = re.compile(r"^((?:\[\]|map\[)[^({]*)\(nil\)$")


def _nil_or_empty(expected: str, actual: str, names: tuple[str, str]) -> str | None:
    """Go's empty slice or map against a nil one, which testify tells apart and a reader
    does not (HumanEvalFix Go-7 and Go-58: ``expected: []string{} actual : []string(nil)``;
    a rewrite that got every other check right was lost over it)."""
    first, second = names
    if (nil := _NIL.match(actual)) and expected == f"{nil[1]}{{}}":
        kind = "map" if nil[1].startswith("map") else "slice"
        return (f"{first} is an empty {kind} `{expected}`, {second} a nil one `{actual}`: a "
                f"`var x {nil[1]}` never assigned stays nil; start from `{expected}` (or "
                f"`make({nil[1]}, 0)`) where an empty one is meant")  # fmt: skip
    if (nil := _NIL.match(expected)) and actual == f"{nil[1]}{{}}":
        kind = "map" if nil[1].startswith("map") else "slice"
        return (
            f"{first} is a nil {kind} `{expected}`, {second} an empty one `{actual}`: "
            f"return nil (or a `var x {nil[1]}` never assigned) where nothing is found"
        )
    return None


_CLOSES = {"[": "]", "{": "}", "(": ")"}


def _reordered(expected: str, actual: str, names: tuple[str, str]) -> str | None:
    """Two lists of the same items in another order (HumanEvalFix Rust-58's ``left: [5, 1,
    653]``, ``right: [1, 5, 653]``, a set collected into a vector): said so, and which of
    them runs in ascending or descending order."""
    one, other = _items(expected), _items(actual)
    if one is None or other is None or one[0] != other[0] or len(one[1]) < 2:
        return None
    if sorted(one[1]) != sorted(other[1]):
        return None
    said = f"{names[0]} and {names[1]} hold the same items in another order"
    for name, items in zip(names, (one[1], other[1]), strict=True):
        if order := _order(items):
            return f"{said}: {name} has them in {order} order"
    return said


def _items(text: str) -> tuple[str, list[str]] | None:
    """(what comes before the bracket, the items) of a bracketed list such as ``[1, 2]``,
    ``vec![1, 2]`` or ``[]int{1, 2}``; None for anything else."""
    opener = next((o for o, c in _CLOSES.items() if text[-1:] == c), "")
    opens = text.find(opener) if opener else -1
    if opens < 0:
        return None
    items, depth, start, i = list[str](), 0, opens + 1, opens + 1
    while i < len(text) - 1:
        c = text[i]
        if c in "\"'`":
            i = string_end(text, i)
            continue
        depth += (c in "[{(") - (c in "]})")
        if c == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
        i += 1
    items.append(text[start : len(text) - 1].strip())
    items = [x for x in items if x]
    return (text[: opens + 1], items) if depth == 0 else None


def _order(items: list[str]) -> str:
    """``ascending`` or ``descending`` when ``items`` are numbers in that order, else empty."""
    if not all(_number(x) for x in items):
        return ""
    values = [float(x) for x in items]
    if values == sorted(values):
        return "ascending"
    return "descending" if values == sorted(values, reverse=True) else ""


def _shared(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their start."""
    return next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _whole_number(a: str, b: str, at: int, sign: str = "") -> int:
    """``at``, the length of what ``a`` and ``b`` share, moved back to where the number it
    cuts starts (its ``sign`` with it), when it cuts one and something comes before it: Go-145's
    ``[]int{-1, -11`` and ``[]int{-11, -12`` part after ``[]int{``, not inside ``-1``."""
    if not (at > 0 and (a[at - 1].isdigit() or a[at - 1] in f"{sign}.")):
        return at
    if not (a[at : at + 1].isdigit() or b[at : at + 1].isdigit()):
        return at
    back = at
    while back and (a[back - 1].isdigit() or a[back - 1] == "."):
        back -= 1
    if sign and back and a[back - 1] in sign:
        back -= 1
    return back or at


_BLANKS = {" ": "space", "\t": "tab", "\n": "newline"}


def _shown(text: str) -> str:
    """``text`` in backquotes, cut to ``SHOWN`` characters; whitespace alone in words."""
    if text and len(set(text)) == 1 and text[0] in _BLANKS:
        name = _BLANKS[text[0]]
        return f"a {name}" if len(text) == 1 else f"{len(text)} {name}s"
    return f"`{text}`" if len(text) <= SHOWN else f"`{text[:SHOWN]}…`"


def with_parting(line: str) -> str:
    """``line`` with where its values part appended, when it is a testify ``Not equal``
    whose values are long."""
    found = _TESTIFY.search(line)
    part = found and where_they_part(found["expected"].strip(), found["actual"].strip())
    return f"{line} — {part}" if part else line


def sides(text: str) -> dict[str, str]:
    """The ``left:`` and ``right:`` values a Rust ``assert_eq!`` printed in ``text``."""
    return dict(_SIDES.findall(text))


def sides_line(text: str) -> str | None:
    """Where the ``left:`` and ``right:`` of a Rust ``assert_eq!`` in ``text`` part."""
    found = sides(text)
    if "left" not in found or "right" not in found:
        return None
    return where_they_part(found["left"].strip(), found["right"].strip(), ("left", "right"))


def string_end(line: str, i: int) -> int:
    """The index after the string literal that opens at ``line[i]`` (its quote: ``"``, ``'``
    or a backquote), escapes skipped; past the end when it does not close on this line. The
    value probes use it to step over strings as they look for a comparison's operator."""
    quote, i = line[i], i + 1
    while i < len(line) and line[i] != quote:
        i += 2 if line[i] == "\\" else 1
    return i + 1


_CHAR = re.compile(r"'(?:\\.|[^\\'])'")


def char_end(line: str, i: int) -> int:
    """The index after a char literal at ``i`` (``'('``, ``'\\n'``), else ``i``."""
    m = _CHAR.match(line, i)
    return m.end() if m else i


def bracket_depth(line: str, quotes: str) -> int:
    """How many more brackets ``line`` opens than it closes, its strings (opened by one of
    ``quotes``) and char literals aside."""
    depth = i = 0
    while i < len(line):
        if line[i] in quotes:
            i = string_end(line, i)
            continue
        if line[i] == "'" and (end := char_end(line, i)) > i:
            i = end
            continue
        depth += (line[i] in "([{") - (line[i] in ")]}")
        i += 1
    return depth


def statement(lines: list[str], index: int, most: int, quotes: str) -> tuple[int, str]:
    """The line at ``index`` (its end of line left out), joined with those after it while its
    brackets stay open (an assertion laid over several lines), at most ``most`` of them: how
    many it took, and the text."""
    taken, text = 1, lines[index].rstrip("\r\n")
    depth = bracket_depth(text, quotes)
    for more in lines[index + 1 : index + most]:
        if depth <= 0:
            break
        taken, text = taken + 1, f"{text} {more.strip()}"
        depth += bracket_depth(more, quotes)
    return taken, text


_LITERAL = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'|`[^`]*`")


def blank_strings(line: str) -> str:
    """``line`` with each string literal emptied (``"a ? b"`` → ``""``): what its brackets,
    operators and comment markers are, read as code."""
    return _LITERAL.sub('""', line)
