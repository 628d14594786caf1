"""Marker-like lines inside a block: read by the block structure and the enclosing fence,
applied whole or refused with a message — never cut at the first marker-like line."""

from __future__ import annotations

from patchwright.edits import Edit, apply_edits, parse_reply

TAIL = ">>>>>>> REPLACE"


def block(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}{TAIL}\n"


def fenced(path: str, *blocks: str) -> str:
    return f"{path}\n```python\n{''.join(blocks)}```\n"


DOCSTRING_WITH_TAIL = f'HELP = """\nEnd a block with\n{TAIL}\n"""\n'
EMBEDDED_BLOCK = 'EXAMPLE = """\n' + block("a\n", "b\n") + '"""\n'


def test_a_tail_line_inside_a_docstring_is_replace_text() -> None:
    for reply in (
        fenced("t.py", block("A = 1\n", DOCSTRING_WITH_TAIL)),
        "t.py\n" + block("A = 1\n", DOCSTRING_WITH_TAIL),
    ):
        parsed = parse_reply(reply)
        assert parsed.errors == []
        assert parsed.edits == [
            Edit("t.py", "replace", "A = 1\n", DOCSTRING_WITH_TAIL, "search_replace")
        ]


def test_a_whole_block_inside_a_replace_is_replace_text() -> None:
    parsed = parse_reply(fenced("t.py", block("A = 1\n", EMBEDDED_BLOCK)))
    assert parsed.errors == []
    assert [e.replace for e in parsed.edits] == [EMBEDDED_BLOCK]


def test_a_block_that_only_edits_what_the_block_before_wrote_is_refused_as_ambiguous() -> None:
    # Two blocks, or one whose REPLACE holds "x = 1 / tail / head / x = 1 / divider"? The
    # second block matches only the text the first one wrote, so neither reading is safe.
    inner = f'X = """\nx = 1\n{TAIL}\n<<<<<<< SEARCH\nx = 1\n=======\n"""\n'
    parsed = parse_reply("a.py\n" + block("A = 1\n", inner))
    assert len(parsed.edits) == 2 and parsed.edits[1].continues
    outcome = apply_edits(parsed.edits, {"a.py": "A = 1\n"})
    assert not outcome.ok and outcome.new_texts == {}
    assert "cannot be told which is meant" in (outcome.failed[0].message or "")


def test_consecutive_blocks_for_one_file_without_a_path_between_still_apply() -> None:
    reply = "a.py\n" + block("A = 1\n", "A = 2\n") + block("B = 1\n", "B = 2\n")
    outcome = apply_edits(parse_reply(reply).edits, {"a.py": "A = 1\nB = 1\n"})
    assert outcome.ok and outcome.new_texts == {"a.py": "A = 2\nB = 2\n"}


def test_blocks_around_a_marker_holding_block_keep_their_own_text() -> None:
    reply = fenced(
        "t.py", block("A = 1\n", "A = 2\n"), block("B = 1\n", DOCSTRING_WITH_TAIL)
    ) + fenced("u.py", block("C = 1\n", "C = 2\n"))
    parsed = parse_reply(reply)
    assert parsed.errors == []
    assert [(e.path, e.search, e.replace) for e in parsed.edits] == [
        ("t.py", "A = 1\n", "A = 2\n"),
        ("t.py", "B = 1\n", DOCSTRING_WITH_TAIL),
        ("u.py", "C = 1\n", "C = 2\n"),
    ]


def test_a_repeated_tail_line_is_refused_not_written_into_the_file() -> None:
    parsed = parse_reply(fenced("t.py", block("A = 1\n", f"A = 2\n{TAIL}\n")))
    assert parsed.edits == []
    assert "repeated marker" in parsed.errors[0] and "reply lines 7 and 8" in parsed.errors[0]


def test_a_broken_later_block_gets_the_error_and_the_earlier_block_stays_whole() -> None:
    reply = fenced("t.py", block("A = 1\n", "A = 2\n"), "<<<<<<< SEARCH\nB = 1\n")
    parsed = parse_reply(reply)
    assert [e.replace for e in parsed.edits] == ["A = 2\n"]
    assert "not terminated" in parsed.errors[0] or "REPLACE" in parsed.errors[0]


def test_a_marker_line_that_no_reading_can_place_refuses_the_block() -> None:
    # the REPLACE holds a tail line followed by a tail, then a block with no divider
    reply = fenced(
        "t.py", block("A = 1\n", f"X = '''\n{TAIL}\n'''\n"), f"{TAIL}\n<<<<<<< SEARCH\nB\n{TAIL}\n"
    )
    parsed = parse_reply(reply)
    assert parsed.errors, "the block must be refused"
    assert all(e.replace != "X = '''\n" for e in parsed.edits), "never cut at the first tail"


def test_two_tails_before_a_broken_block_refuse_the_block_rather_than_cut_it() -> None:
    # No reading makes the rest whole (the last block is broken), and the first block has
    # two tails: cutting at the first would drop "y = 2" and the rest of its REPLACE.
    replace = f"X = '''\n{TAIL}\n'''\n=======\ny = 2\n"
    reply = fenced("t.py", block("A = 1\n", replace), "<<<<<<< SEARCH\nB = 1\n")
    parsed = parse_reply(reply)
    assert parsed.edits == []
    assert "which >>>>>>> REPLACE line ends the block" in parsed.errors[0]


def test_a_divider_line_in_the_replace_is_settled_by_the_file() -> None:
    reply = "doc.rst\n" + block("Intro\n", "Intro\n\nUsage\n=======\nRun it.\n")
    parsed = parse_reply(reply)
    outcome = apply_edits(parsed.edits, {"doc.rst": "Title\n\nIntro\n"})
    assert outcome.ok, outcome.results
    assert outcome.new_texts == {"doc.rst": "Title\n\nIntro\n\nUsage\n=======\nRun it.\n"}


def test_a_divider_line_in_the_search_is_refused_rather_than_misread() -> None:
    # Read at its first =======, this block would replace "Usage" by "Run it. ===== Usage
    # ===== Run it twice."; read at its second, it does what was meant. Both fit the file.
    text = "Usage\n=======\nRun it.\n"
    reply = "doc.rst\n" + block("Usage\n=======\nRun it.\n", "Usage\n=======\nRun it twice.\n")
    outcome = apply_edits(parse_reply(reply).edits, {"doc.rst": text})
    assert not outcome.ok and outcome.new_texts == {}
    message = outcome.results[0].message or ""
    assert "cannot be told" in message and "unified diff" in message


def test_divider_lines_that_fit_the_file_no_way_fail_with_the_closest_lines() -> None:
    reply = "f.txt\n" + block("Q\n", "R\n=======\nS\n")
    outcome = apply_edits(parse_reply(reply).edits, {"f.txt": "A\nB\n"})
    assert not outcome.ok
    assert "no choice of divider" in (outcome.results[0].message or "")


def test_xml_replace_mentioning_the_closing_edit_tag_is_whole() -> None:
    reply = (
        '<EDIT file="x.py">\n<SEARCH>\nA = 1\n</SEARCH>\n'
        "<REPLACE>\nEND = '''\n</EDIT>\n'''\n</REPLACE>\n</EDIT>\n"
    )
    parsed = parse_reply(reply)
    assert parsed.errors == []
    assert [e.replace for e in parsed.edits] == ["END = '''\n</EDIT>\n'''\n"]


def test_xml_replace_holding_its_own_closing_tag_is_refused() -> None:
    reply = (
        '<EDIT file="x.py">\n<SEARCH>\nA = 1\n</SEARCH>\n'
        "<REPLACE>\nEND = '''\n</REPLACE>\n'''\n</REPLACE>\n</EDIT>\n"
    )
    parsed = parse_reply(reply)
    assert parsed.edits == []
    assert "</replace> more than once" in parsed.errors[0]


def test_a_leading_byte_order_mark_does_not_hide_the_first_path() -> None:
    parsed = parse_reply("\ufeffa.py\n" + block("x\n", "y\n"))
    assert [(e.path, e.search, e.replace) for e in parsed.edits] == [("a.py", "x\n", "y\n")]
