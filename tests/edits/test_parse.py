"""parse_reply: every reply format models emit, found in free text."""

from __future__ import annotations

from patchwright.edits import Edit, parse_reply


def test_conflict_marker_block_with_path_line_inside_fence() -> None:
    reply = (
        "I'll fix the bug.\n\n"
        "src/app.py\n"
        "```python\n"
        "<<<<<<< SEARCH\n"
        "    return a - b\n"
        "=======\n"
        "    return a + b\n"
        ">>>>>>> REPLACE\n"
        "```\n"
        "That should do it."
    )
    parsed = parse_reply(reply)
    assert parsed.errors == []
    assert parsed.edits == [
        Edit("src/app.py", "replace", "    return a - b\n", "    return a + b\n", "search_replace")
    ]


def test_path_in_fence_info_string_and_marker_variants() -> None:
    reply = (
        "```python src/x.py\n"
        "<<<<<<<<< SEARCH>\n"
        "a = 1\n"
        "=========\n"
        "a = 2\n"
        ">>>>> REPLACE (done)\n"
        "```\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.search, e.replace) for e in parsed.edits] == [
        ("src/x.py", "a = 1\n", "a = 2\n")
    ]


def test_unfenced_blocks_several_per_file_and_several_files() -> None:
    reply = (
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n"
        "<<<<<<< SEARCH\nz\n=======\nw\n>>>>>>> REPLACE\n\n"
        "**pkg/b.py**\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.search) for e in parsed.edits] == [
        ("a.py", "x\n"),
        ("a.py", "z\n"),
        ("pkg/b.py", "q\n"),
    ]


def test_replace_containing_marker_like_text_is_content() -> None:
    reply = (
        "doc.md\n<<<<<<< SEARCH\nTitle\n=======\nTitle\n=======\n"
        "<<<<<<< SEARCH inside docs\n>>>>>>> REPLACE\n"
    )
    parsed = parse_reply(reply)
    assert parsed.edits[0].replace == "Title\n=======\n<<<<<<< SEARCH inside docs\n"


def test_markers_inside_strings_are_not_markers() -> None:
    reply = (
        "t.py\n<<<<<<< SEARCH\nMARK = '<<<<<<< SEARCH'\n=======\n"
        "MARK = '>>>>>>> REPLACE'\n>>>>>>> REPLACE\n"
    )
    parsed = parse_reply(reply)
    assert parsed.edits[0].search == "MARK = '<<<<<<< SEARCH'\n"
    assert parsed.edits[0].replace == "MARK = '>>>>>>> REPLACE'\n"


def test_empty_search_means_create() -> None:
    parsed = parse_reply("new/mod.py\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n")
    assert parsed.edits[0].search == "" and parsed.edits[0].replace == "X = 1\n"


def test_unterminated_block_is_an_error_not_an_edit() -> None:
    parsed = parse_reply("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n")
    assert parsed.edits == []
    assert "REPLACE" in parsed.errors[0]


def test_block_without_any_path_uses_the_single_known_file_or_errors() -> None:
    reply = "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
    assert parse_reply(reply, known_files=["only.py"]).edits[0].path == "only.py"
    parsed = parse_reply(reply, known_files=["a.py", "b.py"])
    assert parsed.edits == [] and "names no file" in parsed.errors[0]


def test_pyob_xml_edit_with_thought_and_file_attribute() -> None:
    reply = (
        "<THOUGHT>\nFix the sign.\n</THOUGHT>\n"
        '<EDIT file="calc.py">\n<SEARCH>\n    return a - b\n</SEARCH>\n'
        "<REPLACE>\n    return a + b\n</REPLACE>\n</EDIT>\n"
    )
    parsed = parse_reply(reply)
    assert parsed.edits == [
        Edit("calc.py", "replace", "    return a - b\n", "    return a + b\n", "xml")
    ]


def test_pyob_xml_edit_with_preceding_path_line() -> None:
    reply = "calc.py\n<EDIT>\n<SEARCH>\nx = 1\n</SEARCH>\n<REPLACE>\nx = 2\n</REPLACE>\n</EDIT>"
    assert parse_reply(reply).edits[0].path == "calc.py"


def test_unified_diff_hunks_become_edits_with_line_hints() -> None:
    reply = (
        "```diff\n"
        "--- a/src/m.py\n+++ b/src/m.py\n"
        "@@ -3,3 +3,3 @@ def f():\n"
        " def f():\n-    return 1\n+    return 2\n"
        "@@ -20,2 +20,3 @@\n x = 1\n+y = 2\n"
        "```\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.search, e.replace, e.hint_line) for e in parsed.edits] == [
        ("src/m.py", "def f():\n    return 1\n", "def f():\n    return 2\n", 3),
        ("src/m.py", "x = 1\n", "x = 1\ny = 2\n", 20),
    ]


def test_unified_diff_create_and_delete() -> None:
    reply = (
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
    )
    parsed = parse_reply(reply)
    assert [(e.path, e.kind, e.replace) for e in parsed.edits] == [
        ("new.py", "create", "a = 1\nb = 2\n"),
        ("old.py", "delete", ""),
    ]


def test_whole_file_reply_path_line_then_fence() -> None:
    reply = "Here is the file.\n\nsrc/hello.py\n```python\nprint('hi')\n```\n"
    parsed = parse_reply(reply)
    assert parsed.edits == [Edit("src/hello.py", "whole", "", "print('hi')\n", "whole")]


def test_illustrative_code_without_path_is_not_an_edit() -> None:
    reply = "You could call it like this:\n```python\nfoo(1)\n```\n"
    assert parse_reply(reply).edits == []


def test_delete_line() -> None:
    assert parse_reply("DELETE FILE: src/old.py\n").edits == [
        Edit("src/old.py", "delete", "", "", "delete")
    ]


def test_reply_with_no_edits() -> None:
    parsed = parse_reply("I think the code is fine as it is.")
    assert parsed.edits == [] and parsed.errors == []


def test_crlf_reply_is_normalised() -> None:
    reply = "a.py\r\n<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\n"
    assert parse_reply(reply).edits[0].search == "x\n"


def test_a_block_that_lost_its_search_head_is_refused_not_written_as_the_whole_file() -> None:
    # seen from Qwen2.5-Coder-1.5B: the markers went into solution.py as its content
    reply = (
        "solution.py\n```python\n=======\ndef xor(i, j):\n    return '1' if i != j else '0'\n"
        ">>>>>>> REPLACE\n```\n"
    )
    parsed = parse_reply(reply, known_files=["solution.py"])
    assert parsed.edits == []
    (error,) = parsed.errors
    assert "no `<<<<<<< SEARCH` line" in error and "reply line 2" in error


GO_MAIN = "package main\n\nfunc Sep(s string) []string {\n\treturn nil\n}\n\nfunc Other() {}\n"


def test_a_replace_half_alone_naming_no_file_is_read_as_the_code_it_holds() -> None:
    """HumanEvalFix Go-1 with SEARCH/REPLACE: six replies in a row were `=======`, the new
    function, `>>>>>>> REPLACE`; each was told only that it had no SEARCH line."""
    fixed = "func Sep(s string) []string {\n\treturn []string{s}\n}\n"
    reply = f"```go\n=======\n{fixed}>>>>>>> REPLACE\n```\n"
    shown = {"main.go": GO_MAIN, "main_test.go": "package main\n"}
    parsed = parse_reply(reply, known_files=sorted(shown), shown=shown)
    assert parsed.errors == []
    assert [(e.path, e.fmt, e.replace) for e in parsed.edits] == [("main.go", "definitions", fixed)]
    assert parsed.notes == ["the block with no SEARCH part was read as the new code of main.go"]
    # lines before the divider are a SEARCH text that lost its head: not guessed at
    lost_head = f"```go\nfunc Sep(s string) []string {{\n=======\n{fixed}>>>>>>> REPLACE\n```\n"
    kept = parse_reply(lost_head, known_files=sorted(shown), shown=shown)
    assert kept.edits == [] and "no `<<<<<<< SEARCH` line" in kept.errors[0]


def test_a_whole_file_with_a_heading_underline_is_still_a_whole_file() -> None:
    reply = "README.rst\n```rst\nTitle\n=======\n\ntext\n```\n"
    parsed = parse_reply(reply, known_files=["README.rst"])
    assert [e.kind for e in parsed.edits] == ["whole"] and not parsed.errors
