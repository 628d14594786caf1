"""Property: a REPLACE holding marker-like lines (in a docstring), between other blocks,
fenced or not, is applied whole or refused with a message — never cut short."""

from __future__ import annotations

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from patchwright.edits import apply_edits, parse_reply

LINES = [
    "x = 1",
    "    return x",
    "",
    ">>>>>>> REPLACE",
    ">>>>>>> REPLACE'''",
    ">>>>>>> UPDATED",
    "=======",
    "  =======",
    "<<<<<<< SEARCH",
    "<<<<<<< ORIGINAL",
]
FILES = {"a.py": "A = 1\n", "b.py": "B = 1\n", "c.py": "C = 1\n", "d.py": "D = 1\n"}


def block(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def layout(how: str, parts: list[tuple[str, str]]) -> str:
    """The blocks (path, block text) in one fence, one fence each, or no fence."""
    if how == "one fence":
        body = "".join(f"{path}\n{text}" for path, text in parts)
        return f"Here you go:\n```python\n{body}```\nDone.\n"
    if how == "fence each":
        return "".join(f"{path}\n```python\n{text}```\n\n" for path, text in parts)
    return "".join(f"{path}\n{text}\n" for path, text in parts)


@st.composite
def replies(draw: st.DrawFn) -> tuple[str, str]:
    inner = draw(st.lists(st.sampled_from(LINES), min_size=1, max_size=6))
    replace = "X = '''\n" + "".join(x + "\n" for x in inner) + "'''\n"
    parts = [("a.py", block("A = 1\n", replace))]
    if draw(st.booleans()):
        parts.insert(0, ("b.py", block("B = 1\n", "B = 2\n")))
    if draw(st.booleans()):
        parts.append(("c.py", block("C = 1\n", "C = 2\n")))
    if draw(st.booleans()):  # a malformed last block: the reply fails, but never cuts
        parts.append(("d.py", "<<<<<<< SEARCH\nD = 1\n"))
    how = draw(st.sampled_from(["one fence", "fence each", "no fence"]))
    return layout(how, parts), replace


# found by this test: the REPLACE also reads as a tail and a second block for a.py
TWO_READINGS = "X = '''\nx = 1\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nx = 1\n=======\n'''\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies())
@example((layout("no fence", [("a.py", block("A = 1\n", TWO_READINGS))]), TWO_READINGS))
def test_marker_lines_in_a_replace_are_applied_whole_or_refused(case: tuple[str, str]) -> None:
    reply, replace = case
    parsed = parse_reply(reply)
    outcome = apply_edits(parsed.edits, FILES)
    if parsed.errors or not outcome.ok:
        event("refused")
        messages = parsed.errors + [r.message or "" for r in outcome.failed]
        assert all(messages) and messages, "a refusal must say why"
        return
    event("applied whole")
    assert outcome.new_texts["a.py"] == replace, "the REPLACE was cut"
    for path in ("b.py", "c.py"):
        if path in outcome.new_texts:
            assert outcome.new_texts[path] == FILES[path].replace("1", "2")
    assert [e.replace for e in parsed.edits if e.path == "a.py"] == [replace]
