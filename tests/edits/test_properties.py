"""Property tests: an edit cut from a real file, perturbed the way models perturb text,
applies exactly where it was cut from or fails — never elsewhere, never half."""

from __future__ import annotations

import argparse
import json.decoder
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from patchwright.edits import Edit, apply_edits

SOURCES = [Path(str(m.__file__)).read_text() for m in (textwrap, json.decoder, argparse)]
MARK = "PATCHWRIGHT_MARK = 1"
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def perturb_indent(lines: list[str], how: str) -> list[str]:
    if how == "dedent":
        return textwrap.dedent("\n".join(lines)).split("\n")
    if how == "add4":
        return ["    " + x if x.strip() else x for x in lines]
    if how == "tabs":
        out = []
        for x in lines:
            ind = _indent(x)
            out.append("\t" * (len(ind) // 4) + " " * (len(ind) % 4) + x.lstrip(" "))
        return out
    return lines


@st.composite
def cut_edits(draw: st.DrawFn) -> tuple[int, int, int, int, Edit, bool]:
    source = draw(st.integers(0, len(SOURCES) - 1))
    text = SOURCES[source]
    lines = text.split("\n")
    start = draw(st.integers(0, len(lines) - 20))
    while not lines[start].strip():
        start += 1
    end = start + draw(st.integers(1, 8))
    piece = lines[start:end]
    at = draw(st.integers(0, end - start))
    how = draw(st.sampled_from(["none", "dedent", "add4", "tabs"]))
    trailing = draw(st.booleans())
    blanks = draw(st.sampled_from(["none", "lead", "trail", "drop"]))
    crlf = draw(st.booleans())
    search = perturb_indent(list(piece), how)
    neighbour = search[at] if at < len(search) else search[-1]
    replace = [*search[:at], _indent(neighbour) + MARK, *search[at:]]
    if trailing:
        search = [x + "  " if i % 2 else x for i, x in enumerate(search)]
    if blanks == "lead":
        search, replace = ["", *search], ["", *replace]
    elif blanks == "trail":
        search, replace = [*search, ""], [*replace, ""]
    elif blanks == "drop" and any(x.strip() for x in search):
        search = [x for x in search if x.strip()]
        replace = [x for x in replace if x.strip()]
    nl = "\r\n" if crlf else "\n"
    untouched = how == "none" and not trailing and blanks == "none" and not crlf
    edit = Edit("f.py", "replace", nl.join(search) + nl, nl.join(replace) + nl, "prop")
    return source, start, end, at, edit, untouched


def _matches_elsewhere(original: list[str], search: str, start: int, end: int) -> bool:
    """The search, as written, equals other lines (ignoring blank lines and line ends)."""
    wanted = [x.rstrip() for x in search.split("\n") if x.strip()]
    body = [(i, x.rstrip()) for i, x in enumerate(original) if x.strip()]
    keys = [x for _, x in body]
    for t in range(len(keys) - len(wanted) + 1):
        if keys[t : t + len(wanted)] == wanted and not start <= body[t][0] < end:
            return True
    return False


@SETTINGS
@given(cut_edits())
def test_applies_at_the_cut_place_or_fails(case: tuple[int, int, int, int, Edit, bool]) -> None:
    source, start, end, at, edit, untouched = case
    text = SOURCES[source]
    original = text.split("\n")
    # A perturbation that turns the cut into an exact copy of other lines changes its
    # meaning (e.g. an added blank line that only exists elsewhere): not this property.
    assume(not _matches_elsewhere(original, edit.search, start, end))
    out = apply_edits([edit], {"f.py": text})
    if not out.ok:
        assert out.new_texts == {}
        msg = out.results[0].message or ""
        if untouched:  # an exact copy can only fail by being ambiguous
            assert "times" in msg or "places" in msg, msg
        return
    if out.results[0].status == "already_applied":
        assert out.new_texts == {}
        return
    new = (out.new_texts["f.py"] or "").split("\n")
    tail = len(original) - end
    assert new[:start] == original[:start], "changed lines before the cut"
    assert new[len(new) - tail :] == original[end:], "changed lines after the cut"
    middle = new[start : len(new) - tail]
    marks = [i for i, x in enumerate(middle) if x.strip() == MARK]
    assert len(marks) == 1, "the added line must appear exactly once"
    assert [x for x in middle if x.strip() != MARK] == original[start:end]
    before = [x for x in middle[: marks[0]] if x.strip()]
    assert before == [x for x in original[start : start + at] if x.strip()]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(SOURCES) - 1), st.integers(0, 2000), st.text(min_size=5, max_size=40))
def test_one_bad_block_means_no_change_at_all(source: int, where: int, junk: str) -> None:
    text = SOURCES[source]
    lines = text.split("\n")
    line = lines[where % len(lines)]
    good = Edit("a.py", "replace", line + "\n", line + "  # touched\n", "prop")
    bad = Edit("b.py", "replace", f"{junk}\n\u2603 not in the file \u2603\n", "x\n", "prop")
    out = apply_edits([good, bad], {"a.py": text, "b.py": text})
    assert not out.ok
    assert out.new_texts == {}
    assert out.results[1].status == "failed"
