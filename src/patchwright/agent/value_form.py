"""The forms of the strings a line of code builds: a format (``"db%bd"``, ``"{} {}"``,
``f"db{x}d"``, a JavaScript template) or a concatenation of literals and values
(``"db" + x + "d"``), each as a pattern a value fits or does not.

HumanEvalFix Go-79 returns ``fmt.Sprintf("db%bd", decimal)`` where it means ``"db%bdb"``: the
test got ``"db1111d"`` and expected ``"db1111db"``. Neither value is written in the code, but
the first fits the format and the second does not, which puts the bug on that line. Python's
and JavaScript's HumanEvalFix 79 build the same value with ``"db" + … + "d"``.
"""

from __future__ import annotations

import re
from itertools import pairwise

from patchwright.verify.runners.value_diff import string_end

# printf's verbs (Go, C, Python's %), {…} (Python's format and f-strings, Rust's format!) and
# JavaScript's ${…}; %% and {{ }} are the characters themselves
_VERB = re.compile(r"%%|\{\{|\}\}|%[-+# 0]*\d*(?:\.\d+)?[bcdeEfFgGoOpqstTvxXU]|\$?\{[^{}]*\}")
_LITERAL_OF = {"%%": "%", "{{": "{", "}}": "}"}
_ANY = "(?s:.*)"


def forms(line: str) -> list[re.Pattern[str]]:
    """The patterns of the values ``line`` builds from its string literals: one per literal
    holding a format verb and a character of its own, and one for a concatenation of literals
    and values that is a whole expression (``return "db" + x + "d"``, not ``s + "d"``)."""
    spans = literal_spans(line)
    found = [p for s, e in spans if (p := _format(line[s + 1 : e - 1])) is not None]
    joined = _concatenation(line, spans)
    return found + ([joined] if joined is not None else [])


def _format(content: str) -> re.Pattern[str] | None:
    if "\\" in content:  # how the report prints an escape cannot be told
        return None
    parts: list[str] = []
    own = verbs = 0
    at = 0
    for m in _VERB.finditer(content):
        parts.append(re.escape(content[at : m.start()]))
        own += m.start() - at
        if m[0] in _LITERAL_OF:
            parts.append(re.escape(_LITERAL_OF[m[0]]))
            own += 1
        else:
            parts.append(_ANY)
            verbs += 1
        at = m.end()
    parts.append(re.escape(content[at:]))
    own += len(content) - at
    return re.compile("".join(parts)) if verbs and own else None


def _concatenation(line: str, spans: list[tuple[int, int]]) -> re.Pattern[str] | None:
    """The pattern of ``"a" + x + "b"``: the literals in order with anything between them,
    when every gap between two literals is joined by ``+`` on both sides and nothing is added
    before the first or after the last."""
    if len(spans) < 2 or any("\\" in line[s:e] for s, e in spans):
        return None
    before, after = line[: spans[0][0]].rstrip(), line[spans[-1][1] :].lstrip()
    if before.endswith("+") or after.startswith("+"):
        return None
    parts = [re.escape(line[spans[0][0] + 1 : spans[0][1] - 1])]
    for (_, end), (start, close) in pairwise(spans):
        gap = line[end:start].strip()
        if not (gap.startswith("+") and gap.endswith("+")):
            return None
        if gap != "+":
            parts.append(_ANY)
        parts.append(re.escape(line[start + 1 : close - 1]))
    if _ANY not in parts or not "".join(parts).replace(_ANY, ""):
        return None
    return re.compile("".join(parts))


def literal_spans(line: str) -> list[tuple[int, int]]:
    """(start, end) of each string literal on ``line`` (an f-, r- or b- prefix left out), up
    to a ``//`` or ``#`` comment."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(line):
        if line[i] in "\"'`":
            end = string_end(line, i)
            if end > len(line):
                break
            spans.append((i, end))
            i = end
        elif line.startswith(("//", "#"), i):
            break
        else:
            i += 1
    return spans
