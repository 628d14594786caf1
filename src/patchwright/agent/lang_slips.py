"""What a compiler's words leave unsaid about two slips small models make in Go, Rust and
Python: the rule behind the error, in one line.

- **A conditional where the language has none of that form.** HumanEvalFix Go-127's rewrites
  ended ``return is_prime(n) ? "YES" : "NO"`` twice running; told ``syntax error near
  'is_prime(n) ? "YES" :'``, the 1.5B model sent it again. Go and Rust have no ``c ? a : b``
  and Python spells it ``a if c else b`` (Go-141's repair wrote ``return "Yes" if count <= 3
  else "No"`` in Go): the note says so, at the line.
- **Go's unused variable.** ``is_prime declared but not used`` is an error in Go, not a
  warning; Go-127's code declares ``is_prime`` and never calls it, and three replies
  rewrote the helper instead of using it. The note says what the rule is and the two ways
  out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from patchwright.verify.runners.value_diff import blank_strings

_TERNARY = re.compile(r"\S\s+\?\s+\S[^;{}]*?\s:\s+\S")  # c ? a : b
_PY_CONDITIONAL = re.compile(r"[\w\"')\]]\s+if\s+[^{}]+?\s+else\s+\S")  # a if c else b
_GO_IF = "write an if statement (`if c { return a }` then `return b`)"
_JS_WAY = "JavaScript writes a conditional as `c ? a : b`"
# suffix → its comment, and (the slip, what to write instead) for each it lacks
_RULES: dict[str, tuple[str, tuple[tuple[re.Pattern[str], str], ...]]] = {
    ".go": ("//", (
        (_TERNARY, f"Go has no conditional operator `c ? a : b`: {_GO_IF}"),
        (_PY_CONDITIONAL, f"Go has no conditional expression `a if c else b`: {_GO_IF}"),
    )),
    ".rs": ("//", (
        (_TERNARY, "Rust has no conditional operator `c ? a : b`: write `if c { a } else { b }`"),
        (_PY_CONDITIONAL, "Rust writes a conditional as `if c { a } else { b }`"),
    )),
    ".py": ("#", ((_TERNARY, "Python has no `c ? a : b`: write `a if c else b`"),)),
    **{ext: ("//", ((_PY_CONDITIONAL, _JS_WAY),))
       for ext in (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx")},
}  # fmt: skip
_UNUSED = re.compile(r"\b(\w+) declared (?:but|and) not used\b|\bdeclared and not used: (\w+)")
# what a parser says of a line it cannot read (not testify's "expected: …", which every
# failed assertion prints: the code is then not scanned at all)
_SYNTAX = re.compile(r"syntax|unexpected|error: expected|invalid", re.IGNORECASE)
MOST = 2  # notes of each kind
_MISSING_RETURN = re.compile(r"\.go:\d+(?::\d+)?: missing return\b")


def slip_notes(report: str, texts: Mapping[str, str | None]) -> list[str]:
    """A note for each line of ``texts`` (path → the code as the change left it) that uses a
    conditional operator its language lacks, when ``report`` says the code did not parse or
    build; one for each Go variable ``report`` says is declared and not used, and one for
    Go's ``missing return``."""
    notes = _ternaries(texts) if _SYNTAX.search(report) else []
    names = dict.fromkeys(a or b for a, b in _UNUSED.findall(report))
    notes += [
        f"Go refuses a variable that is declared and never used, as `{name}` is: use it "
        "where the code needs it, or delete it."
        for name in list(names)[:MOST]
    ]
    if _MISSING_RETURN.search(report):  # HumanEvalFix Go-158's sort function
        notes.append(
            "Go says `missing return` where a function that returns a value can reach its "
            "closing `}` without a `return` (an `if` that returns, with no `return` after it): "
            "add the `return` that path needs."
        )
    return notes


def _ternaries(texts: Mapping[str, str | None]) -> list[str]:
    notes: list[str] = []
    for path, text in sorted(texts.items()):
        rules = _RULES.get(path[path.rfind(".") :]) if "." in path else None
        if rules is None or text is None:
            continue
        comment, slips = rules
        for n, line in enumerate(text.splitlines(), 1):
            code = blank_strings(line.strip()).split(comment)[0]
            if code.startswith(("/*", "*")):
                continue
            way = next((w for slip, w in slips if slip.search(code)), None)
            if way is not None:
                notes.append(f"{path}:{n}: `{line.strip()}` — {way}.")
                if len(notes) == MOST:
                    return notes
    return notes
