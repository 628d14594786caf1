"""Specification of the edit engine at its edges: replies a model garbles, line endings and
encodings, whole files against SEARCH/REPLACE blocks, how far fuzzy matching goes, and what
the engine tells the model when nothing could be done.

The rule throughout: a malformed piece is explained in ``errors`` (or a failed block's
message), never silently dropped and never written into a file half-read.
"""

from __future__ import annotations

import pytest

from patchwright.edits import (
    Edit,
    PathResolutionError,
    apply_edits,
    describe_no_edits,
    must_exist,
    parse_reply,
    pick_by_content,
    render_retry_message,
    resolve_edit_path,
)
from patchwright.edits.imports import restore_imports
from patchwright.edits.quotes import straighten_added_quotes


def sr(path: str, search: str, replace: str) -> Edit:
    return Edit(path, "replace", search, replace, "test")


# --- malformed replies: explained, and the good parts kept ---------------------------------


def test_an_edit_tag_never_closed_is_an_error_naming_its_reply_line() -> None:
    reply = "Fixing it.\n<EDIT file='a.py'>\n<SEARCH>\nx = 1\n</SEARCH>\n<REPLACE>\nx = 2\n"
    parsed = parse_reply(reply)
    assert parsed.edits == []
    assert parsed.errors == ["<EDIT> at reply line 2 has no closing </EDIT>"]


def test_an_edit_tag_without_a_replace_part_is_refused_not_taken_as_a_deletion() -> None:
    parsed = parse_reply('<EDIT path="a.py">\n<SEARCH>\nx = 1\n</SEARCH>\n</EDIT>\n')
    assert parsed.edits == []
    assert "needs both <SEARCH>" in parsed.errors[0]


def test_an_edit_tag_holding_two_search_parts_is_refused_as_unreadable() -> None:
    reply = (
        '<EDIT file="a.py">\n<SEARCH>\nx\n</SEARCH>\n<SEARCH>\ny\n</SEARCH>\n'
        "<REPLACE>\nz\n</REPLACE>\n</EDIT>\n"
    )
    parsed = parse_reply(reply)
    assert parsed.edits == []
    assert "<search> more than once" in parsed.errors[0]
    assert "unified diff" in parsed.errors[0]  # says what to send instead


def test_a_broken_edit_tag_does_not_swallow_the_well_formed_one_after_it() -> None:
    reply = (
        '<EDIT file="a.py">\n<SEARCH>\nx = 1\n</SEARCH>\n</EDIT>\n'
        '<EDIT file="b.py">\n<SEARCH>\ny = 1\n</SEARCH>\n<REPLACE>\ny = 2\n</REPLACE>\n</EDIT>\n'
    )
    parsed = parse_reply(reply)
    assert len(parsed.errors) == 1
    assert parsed.edits == [Edit("b.py", "replace", "y = 1\n", "y = 2\n", "xml")]


def test_an_edit_tag_may_name_its_file_in_a_file_tag_and_later_edits_inherit_it() -> None:
    reply = (
        "<EDIT>\n<FILE>pkg/m.py</FILE>\n<SEARCH>a</SEARCH>\n<REPLACE>b</REPLACE>\n</EDIT>\n"
        "<EDIT>\n<SEARCH>c</SEARCH>\n<REPLACE>d</REPLACE>\n</EDIT>\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.search, e.replace) for e in parsed.edits] == [
        ("pkg/m.py", "a\n", "b\n"),
        ("pkg/m.py", "c\n", "d\n"),
    ]


def test_an_unterminated_block_is_reported_while_the_block_before_it_is_kept() -> None:
    reply = (
        "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
        "b.py\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.search) for e in parsed.edits] == [("a.py", "x = 1\n")]
    assert len(parsed.errors) == 1


def test_a_whole_file_reply_cut_off_before_its_closing_fence_is_not_an_edit() -> None:
    # a reply truncated by the token limit: writing it would cut the file short
    reply = "src/app.py\n```python\ndef main():\n    print('hi')\n"
    assert parse_reply(reply, known_files=["src/app.py"]).edits == []


def test_a_block_without_any_path_names_its_position_in_the_error() -> None:
    reply = (
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
        "I also tidied this:\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n"
    )
    # the second block inherits a.py: a path once named holds until another is named
    assert [e.path for e in parse_reply(reply).edits] == ["a.py", "a.py"]
    lone = "<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n"
    parsed = parse_reply(lone, known_files=["a.py", "b.py"])
    assert parsed.errors == ["edit block 1 names no file: put the file path on the line before it"]


def test_a_delete_line_needs_something_that_reads_as_a_path() -> None:
    assert parse_reply("Delete file: the old one\n").edits == []
    assert parse_reply("DELETE: Makefile\n").edits == [Edit("Makefile", "delete", "", "", "delete")]
    assert parse_reply("## Delete file `src/legacy.py`\n").edits[0].path == "src/legacy.py"


# --- unified diffs ----------------------------------------------------------------------------


def test_a_no_newline_marker_in_a_hunk_is_not_copied_into_either_side() -> None:
    reply = (
        "--- a/m.txt\n+++ b/m.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
        "+c\n\\ No newline at end of file\n"
    )
    (edit,) = parse_reply(reply).edits
    assert (edit.search, edit.replace) == ("a\nb\n", "a\nc\n")


def test_a_diff_without_a_and_b_prefixes_keeps_its_paths_as_written() -> None:
    reply = "--- src/m.py\n+++ src/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert [(e.path, e.hint_line) for e in parse_reply(reply).edits] == [("src/m.py", 1)]


def test_a_new_file_sent_as_several_hunks_is_one_creation_with_all_their_lines() -> None:
    reply = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,1 @@\n+a = 1\n@@ -0,0 +2,1 @@\n+b = 2\n"
    assert parse_reply(reply).edits == [Edit("new.py", "create", "", "a = 1\nb = 2\n", "udiff")]


def test_a_deletion_header_without_hunks_still_deletes_the_file() -> None:
    reply = "--- a/old.py\n+++ /dev/null\n"
    assert parse_reply(reply).edits == [Edit("old.py", "delete", "", "", "udiff")]


# --- line endings and encodings -------------------------------------------------------------


def test_a_reply_with_old_mac_line_endings_parses_like_one_with_newlines() -> None:
    unix = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    assert parse_reply(unix.replace("\n", "\r")).edits == parse_reply(unix).edits


def test_a_whole_file_written_over_a_crlf_file_keeps_crlf() -> None:
    out = apply_edits([Edit("w.txt", "whole", "", "one\ntwo\n", "t")], {"w.txt": "one\r\n"})
    assert out.ok and out.new_texts == {"w.txt": "one\r\ntwo\r\n"}


def test_a_crlf_file_already_holding_the_change_is_left_byte_for_byte() -> None:
    search, replace = "total = 0\n", "total = 0\ncount = 0\n"
    text = "total = 0\r\ncount = 0\r\nprint(total)\r\n"
    out = apply_edits([sr("a.py", search, replace)], {"a.py": text})
    assert out.ok and out.results[0].status == "already_applied" and out.new_texts == {}


def test_non_ascii_text_is_matched_and_kept_exactly() -> None:
    text = "greeting = 'grüß dich'  # ☃\nfarewell = 'さようなら'\n"
    out = apply_edits([sr("i18n.py", "farewell = 'さようなら'\n", "farewell = 'adieu'\n")],
                      {"i18n.py": text})  # fmt: skip
    assert out.new_texts == {"i18n.py": "greeting = 'grüß dich'  # ☃\nfarewell = 'adieu'\n"}


def test_curly_quotes_that_break_added_python_are_straightened_with_a_note() -> None:
    old = "def greet():\n    return 1\n"
    edit = sr("g.py", "    return 1\n", "    return \u201chello\u201d\n")
    out = apply_edits([edit], {"g.py": old})
    assert out.ok and out.new_texts["g.py"] == 'def greet():\n    return "hello"\n'
    assert any("straightened typographic quotes in 1 added line" in n for n in out.notes)


def test_curly_quotes_inside_a_valid_string_are_the_authors_and_stay() -> None:
    old = "MSG = 'x'\n"
    new = "MSG = '\u201cquoted\u201d'\n"
    assert straighten_added_quotes(old, new) == (new, 0)


def test_quotes_are_not_touched_when_the_file_did_not_parse_before_either() -> None:
    old = "def broken(:\n"
    new = "def broken(:\nx = \u201cy\u201d\n"
    assert straighten_added_quotes(old, new) == (new, 0)


# --- whole files against SEARCH/REPLACE ------------------------------------------------------


def test_a_whole_file_identical_to_the_file_but_for_trailing_space_changes_nothing() -> None:
    out = apply_edits([Edit("a.py", "whole", "", "x = 1\n\n\n", "t")], {"a.py": "x = 1\n"})
    assert out.ok and out.results[0].status == "already_applied" and out.new_texts == {}


def test_deleting_a_file_that_does_not_exist_fails_and_says_so() -> None:
    out = apply_edits([Edit("gone.py", "delete", "", "", "t")], {})
    assert not out.ok and out.results[0].message == "cannot delete gone.py: no such file"


def test_creating_over_an_empty_file_is_allowed() -> None:
    out = apply_edits([Edit("empty.py", "create", "", "X = 1", "t")], {"empty.py": ""})
    assert out.ok and out.new_texts == {"empty.py": "X = 1\n"}


def test_a_whole_file_may_add_definitions_next_to_the_ones_it_keeps() -> None:
    current = "def a():\n    return 1\n"
    reply = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    out = apply_edits([Edit("m.py", "whole", "", reply, "t")], {"m.py": current})
    assert out.ok and out.results[0].strategy == "whole" and out.new_texts["m.py"] == reply


def test_a_stub_file_that_loses_a_definition_is_merged_like_a_module() -> None:
    current = "def a() -> int: ...\n\n\ndef b() -> str: ...\n"
    reply = "def b() -> bytes: ...\n"
    out = apply_edits([Edit("m.pyi", "whole", "", reply, "t")], {"m.pyi": current})
    assert out.ok and out.results[0].strategy == "merge"
    assert out.new_texts["m.pyi"] == "def a() -> int: ...\n\n\ndef b() -> bytes: ...\n"


def test_a_search_replace_then_a_whole_file_of_the_same_file_apply_in_order() -> None:
    edits = [sr("a.txt", "x\n", "y\n"), Edit("a.txt", "whole", "", "z\n", "t")]
    out = apply_edits(edits, {"a.txt": "x\n"})
    assert out.ok and out.new_texts == {"a.txt": "z\n"}
    assert [r.strategy for r in out.results] == ["exact", "whole"]


def test_a_block_after_a_deletion_of_its_file_fails_and_nothing_is_deleted() -> None:
    edits = [Edit("a.py", "delete", "", "", "t"), sr("a.py", "x\n", "y\n")]
    files = {"a.py": "x\n"}
    out = apply_edits(edits, files)
    assert not out.ok and out.new_texts == {}
    assert [r.status for r in out.results] == ["applied", "failed"]


# --- fuzzy matching: how far it goes ---------------------------------------------------------


def test_a_short_search_with_a_typo_is_never_placed_by_similarity() -> None:
    # under 40 characters there is too little text to trust a near match
    out = apply_edits([sr("a.py", "x = compte(1)\ny = 2\n", "x = compute(2)\ny = 2\n")],
                      {"a.py": "x = compute(1)\ny = 2\n"})  # fmt: skip
    assert not out.ok
    assert out.results[0].closest is not None and "x = compute(1)" in out.results[0].closest


def test_a_one_line_search_is_never_placed_by_similarity() -> None:
    line = "    result = calculate_the_total_price_of(order, including_taxes=True)\n"
    typo = line.replace("calculate", "calcualte")
    out = apply_edits([sr("a.py", typo, "    result = 0\n")], {"a.py": "def f():\n" + line})
    assert not out.ok


def test_a_search_unlike_every_line_is_not_told_the_file_is_empty() -> None:
    out = apply_edits([sr("a.py", "qqq\n", "y\n")], {"a.py": "abc\ndef\n"})
    assert not out.ok
    assert "the file is empty" not in (out.results[0].message or "")


def test_a_near_match_in_two_places_is_refused_naming_both() -> None:
    block = (
        "    with open(path, encoding='utf-8') as handle:\n"
        "        data = json.load(handle)\n"
        "    return data\n"
    )
    text = f"def a(path):\n{block}\n\ndef b(path):\n{block}"
    search = block.replace("encoding='utf-8'", "encoding='utf8'")
    out = apply_edits([sr("m.py", search, search.replace("data", "value"))], {"m.py": text})
    assert not out.ok
    message = out.results[0].message or ""
    assert "it must match exactly one place" in message
    assert "starting at lines 2, 7" in message  # the two functions' bodies


# --- what the model is told ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("", "it is empty"),
        ("  \n\t\n", "it is empty"),
        ("\x00\x01binary", "it is not text"),
        ("Here:\n```\nx = 1\n```\nand\n```\ny = 2\n```\n", "its 2 code block(s) name no file"),
        ("The code looks correct.\nNo change needed.", "it is prose only (2 line(s))"),
    ],
)
def test_a_reply_without_edits_is_described_by_what_it_holds(reply: str, expected: str) -> None:
    text = describe_no_edits(reply)
    assert text.startswith("the reply contains no edits: ") and expected in text


def test_the_retry_message_of_a_clean_outcome_says_all_applied() -> None:
    out = apply_edits([sr("a.txt", "x\n", "y\n")], {"a.txt": "x\n"})
    assert render_retry_message(out) == "All edit blocks applied."


def test_the_retry_message_shows_the_lines_of_a_missing_search_numbered() -> None:
    text = "alpha = 1\nbeta = 2\ngamma = 3\n"
    out = apply_edits([sr("a.py", "beta = 20\n", "beta = 3\n")], {"a.py": text})
    message = render_retry_message(out)
    assert "1 of 1 edit block(s) failed, so NO change was made" in message
    assert "2 | beta = 2" in message
    assert "matched and will be applied" not in message  # no good block to mention


# --- which file an edit means ----------------------------------------------------------------


def test_only_edits_that_search_or_delete_need_an_existing_file() -> None:
    assert must_exist(sr("a.py", "x\n", "y\n"))
    assert must_exist(Edit("a.py", "delete", "", "", "t"))
    assert not must_exist(sr("a.py", "  \n", "y\n"))
    assert not must_exist(Edit("a.py", "whole", "", "y\n", "t"))
    assert not must_exist(Edit("a.py", "create", "", "y\n", "t"))


def test_a_shared_file_name_is_settled_by_the_file_holding_the_search_text() -> None:
    files = ["app/util.py", "lib/util.py"]
    texts = {"app/util.py": "def a():\n    return 1\n", "lib/util.py": "def b():\n    return 2\n"}
    edit = sr("util.py", "    return 2\n", "    return 3\n")
    assert resolve_edit_path(edit, files, texts.get) == "lib/util.py"
    assert pick_by_content(edit, texts) == "lib/util.py"


def test_a_shared_file_name_whose_search_fits_both_stays_ambiguous() -> None:
    files = ["app/util.py", "lib/util.py"]
    same = "def a():\n    return 1\n"
    edit = sr("util.py", "    return 1\n", "    return 2\n")
    with pytest.raises(PathResolutionError) as err:
        resolve_edit_path(edit, files, {"app/util.py": same, "lib/util.py": same}.get)
    assert err.value.candidates == files


def test_an_unreadable_candidate_is_no_answer_to_an_ambiguous_name() -> None:
    edit = sr("util.py", "    return 1\n", "    return 2\n")
    with pytest.raises(PathResolutionError):
        resolve_edit_path(edit, ["app/util.py", "lib/util.py"], lambda path: None)


def test_a_new_file_resolves_to_its_cleaned_path_without_reading_anything() -> None:
    def never(path: str) -> str | None:
        raise AssertionError(f"read {path}")

    edit = Edit("`./pkg/new_mod.py`", "create", "", "X = 1\n", "t")
    assert resolve_edit_path(edit, ["pkg/old.py"], never) == "pkg/new_mod.py"


# --- imports an edit removed -----------------------------------------------------------------


def test_an_aliased_import_is_restored_under_its_alias() -> None:
    old = "import numpy as np\nimport os\n\nprint(np.zeros(1), os.sep)\n"
    new = "import os\n\nprint(np.zeros(1), os.sep)\n"
    fixed, restored = restore_imports(old, new)
    assert restored == ["import numpy as np"]
    assert fixed == "import os\nimport numpy as np\n\nprint(np.zeros(1), os.sep)\n"


def test_an_import_goes_back_after_the_docstring_when_no_import_is_left() -> None:
    old = '"""Doc."""\nimport os\n\nprint(os.sep)\n'
    new = '"""Doc."""\n\nprint(os.sep)\n'
    fixed, restored = restore_imports(old, new)
    assert restored == ["import os"] and fixed == '"""Doc."""\nimport os\n\nprint(os.sep)\n'


def test_a_removed_import_whose_name_the_new_code_binds_itself_stays_removed() -> None:
    old = "from os import sep\n\nprint(sep)\n"
    new = "sep = '/'\n\nprint(sep)\n"
    assert restore_imports(old, new) == (new, [])


def test_a_future_import_is_never_restored() -> None:
    old = "from __future__ import annotations\nimport os\n\nprint(os.sep, annotations)\n"
    new = "import os\n\nprint(os.sep, annotations)\n"
    assert restore_imports(old, new) == (new, [])
