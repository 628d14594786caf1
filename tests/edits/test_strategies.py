"""Layered matching: each strategy, strictest first, and refusal on ambiguity."""

from __future__ import annotations

import pytest

from patchwright.edits import ApplyResult, Edit, apply_edits


def run(original: str, search: str, replace: str, path: str = "f.py") -> ApplyResult:
    return apply_edits([Edit(path, "replace", search, replace, "test")], {path: original})


def applied(original: str, search: str, replace: str) -> tuple[str, str | None]:
    out = run(original, search, replace)
    assert out.ok, out.results[0].message
    return out.new_texts.get("f.py") or original, out.results[0].strategy


def test_exact() -> None:
    text, strategy = applied("a = 1\nb = 2\n", "b = 2\n", "b = 3\n")
    assert (text, strategy) == ("a = 1\nb = 3\n", "exact")


def test_trailing_whitespace_keeps_the_files_own_unchanged_lines() -> None:
    original = "x = 1   \ny = 2  \nz = 3\n"
    text, strategy = applied(original, "x = 1\ny = 2\n", "x = 1\ny = 20\n")
    assert strategy == "trailing_whitespace"
    assert text == "x = 1   \ny = 20\nz = 3\n"


def test_leading_and_trailing_blank_lines_ignored() -> None:
    original = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    text, strategy = applied(original, "\n\ndef g():\n    return 2\n\n", "def g():\n    return 3\n")
    assert strategy == "blank_lines"
    assert text == "def f():\n    return 1\n\n\ndef g():\n    return 3\n"


def test_missing_interior_blank_line_keeps_the_files_blank_line() -> None:
    original = "a = 1\n\nb = 2\nc = 3\n"
    text, strategy = applied(original, "a = 1\nb = 2\n", "a = 1\nb = 20\n")
    assert strategy == "blank_lines"
    assert text == "a = 1\n\nb = 20\nc = 3\n"


def test_indent_offset_reindents_replace() -> None:
    original = "class A:\n    def f(self):\n        return 1\n"
    text, strategy = applied(
        original, "def f(self):\n    return 1\n", "def f(self):\n    x = 1\n    return x\n"
    )
    assert strategy == "indent_offset"
    assert text == "class A:\n    def f(self):\n        x = 1\n        return x\n"


def test_relative_indent_spaces_to_tabs() -> None:
    original = "class A:\n\tdef f(self):\n\t\treturn 1\n"
    text, strategy = applied(
        original,
        "class A:\n    def f(self):\n        return 1\n",
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n",
    )
    assert strategy == "relative_indent"
    assert text == "class A:\n\tdef f(self):\n\t\tif self:\n\t\t\treturn 2\n\t\treturn 1\n"


def test_relative_indent_two_spaces_to_four() -> None:
    original = "if a:\n    if b:\n        go()\n"
    text, strategy = applied(original, "if b:\n  go()\n", "if b:\n  go()\n  stop()\n")
    assert strategy == "relative_indent"
    assert text == "if a:\n    if b:\n        go()\n        stop()\n"


def test_inconsistent_relative_indentation_is_refused() -> None:
    original = "if a:\n    x = 1\n    y = 2\n"
    out = run(original, "if a:\n    x = 1\ny = 2\n", "if a:\n    x = 1\ny = 3\n")
    assert not out.ok


def test_unicode_punctuation_normalised() -> None:
    original = 'msg = "it\'s done"\nprint(msg)\n'
    text, strategy = applied(
        original, "msg = \u201cit\u2019s done\u201d\n", "msg = \u201cit\u2019s finished\u201d\n"
    )
    assert strategy == "unicode"
    assert text == 'msg = "it\'s finished"\nprint(msg)\n'


def test_whitespace_inside_lines() -> None:
    text, strategy = applied(
        "def f(a, b):\n    return a * (1 + b)\n",
        "def f(a, b):\n    return a*(1+b)\n",
        "def f(a, b, c):\n    return a*(1+b)\n",
    )
    assert strategy == "whitespace_insensitive"
    assert text == "def f(a, b, c):\n    return a * (1 + b)\n"


def test_fragment_of_a_line() -> None:
    text, strategy = applied("x = compute(1, 2)  # go\n", "compute(1, 2)", "compute(1, 3)")
    assert (text, strategy) == ("x = compute(1, 3)  # go\n", "substring")


def test_fragment_never_matches_inside_a_word() -> None:
    out = run("max = 10\n", "x = 1", "x = 2")
    assert not out.ok


LONG = "".join(f"def f{i}(x):\n    y = x + {i}\n    return y * {i}\n\n" for i in range(6))


def test_elision_with_matching_markers_in_replace() -> None:
    search = "def f2(x):\n    # ... existing code ...\n    return y * 2\n"
    replace = "def f2(x, z=0):\n    # ... existing code ...\n    return y * 2 + z\n"
    text, strategy = applied(LONG, search, replace)
    assert strategy == "elision"
    assert "def f2(x, z=0):\n    y = x + 2\n    return y * 2 + z\n" in text
    assert "def f3(x):\n    y = x + 3\n" in text


def test_elision_replaced_whole_region_when_replace_has_no_markers() -> None:
    search = "def f4(x):\n    ...\n    return y * 4\n"
    replace = "def f4(x):\n    return x\n"
    text, strategy = applied(LONG, search, replace)
    assert strategy == "elision"
    assert "def f4(x):\n    return x\n\ndef f5" in text


def test_fuzzy_applies_a_unique_close_match_keeping_file_lines() -> None:
    original = (
        "def load(path):\n"
        "    # read the configuration file from disk\n"
        "    with open(path) as fh:\n"
        "        return json.load(fh)\n"
    )
    search = (
        "def load(path):\n"
        "    # read the config file from disk\n"
        "    with open(path) as fh:\n"
        "        return json.load(fh)\n"
    )
    replace = search.replace("open(path)", "open(path, encoding='utf-8')")
    text, strategy = applied(original, search, replace)
    assert strategy == "fuzzy"
    assert "# read the configuration file from disk" in text
    assert "open(path, encoding='utf-8')" in text


def test_fuzzy_refuses_when_changed_lines_are_stale() -> None:
    original = "def f(a):\n    total = a + 1\n    log(total)\n    return total\n"
    search = "def f(a):\n    result = a + 1\n    log(total)\n    return total\n"
    out = run(original, search, search.replace("a + 1", "a + 2"))
    assert not out.ok


def test_search_occurring_twice_fails_as_ambiguous() -> None:
    original = "x = 1\ny = 2\n\nx = 1\ny = 2\n"
    out = run(original, "x = 1\ny = 2\n", "x = 5\ny = 2\n")
    assert not out.ok
    assert "2 times" in (out.results[0].message or "")
    assert out.new_texts == {}


def test_relaxed_match_occurring_twice_fails() -> None:
    original = "if a:\n    go()\nif b:\n        go()\n"
    out = run(original, "go()\n", "stop()\n")
    assert not out.ok


def test_udiff_line_hint_breaks_a_tie() -> None:
    original = "x = 1\n" + "pass\n" * 10 + "x = 1\n"
    edit = Edit("f.py", "replace", "x = 1\n", "x = 2\n", "udiff", hint_line=12)
    out = apply_edits([edit], {"f.py": original})
    assert out.ok
    assert out.new_texts["f.py"] == "x = 1\n" + "pass\n" * 10 + "x = 2\n"


@pytest.mark.parametrize("indent", ["\t", "  ", "        "])
def test_tabs_and_odd_indents_roundtrip(indent: str) -> None:
    original = f"def f():\n{indent}a = 1\n{indent}return a\n"
    text, _ = applied(original, "a = 1\nreturn a\n", "a = 2\nreturn a\n")
    assert text == f"def f():\n{indent}a = 2\n{indent}return a\n"


def test_udiff_line_hint_never_settles_a_relaxed_tie() -> None:
    # Two places match once indentation is ignored; the hunk's line number is no
    # evidence for a relaxed match, so the block fails instead of guessing.
    original = "if a:\n    go()\n" + "pass\n" * 10 + "if b:\n        go()\n"
    edit = Edit("f.py", "replace", "go()\n", "stop()\n", "udiff", hint_line=13)
    out = apply_edits([edit], {"f.py": original})
    assert not out.ok
    assert out.new_texts == {}
    assert "2 places" in (out.results[0].message or "")


REPEATED = (
    "def f(x):\n    weight = x\n    a = 1\n    return a\n\n"
    "def g(x):\n    weight = x\n    b = 2\n    c = 3\n    return b + c\n"
)


def test_elided_context_piece_may_repeat_when_the_changed_piece_is_unique() -> None:
    # The unchanged head piece occurs twice; the result is the same whichever the
    # model meant, since only the (unique) tail piece changes.
    search = "weight = x\n# ... existing code ...\n    c = 3\n    return b + c\n"
    replace = "weight = x\n# ... existing code ...\n    c = 4\n    return b + c\n"
    text, strategy = applied(REPEATED, search, replace)
    assert strategy == "elision"
    assert text == REPEATED.replace("c = 3", "c = 4")


def test_elided_changed_piece_that_repeats_is_refused() -> None:
    # The head piece changes and occurs twice before the unique tail: a guess, refused.
    search = "    weight = x\n# ... existing code ...\n    return b + c\n"
    replace = "    weight = 2 * x\n# ... existing code ...\n    return b + c\n"
    out = run(REPEATED, search, replace)
    assert not out.ok
    assert out.results[0].status == "failed"


def test_elided_piece_ambiguity_reports_whole_file_line_numbers() -> None:
    original = "a = 0\n" + "x = 1\ny = 2\n" * 2 + "z = 3\n"
    search = "a = 0\n# ...\nx = 1\ny = 2\n"
    replace = "a = 0\n# ...\nx = 10\ny = 2\n"
    out = run(original, search, replace)
    assert not out.ok
    assert "2, 4" in (out.results[0].message or "")


def test_fuzzy_refuses_when_new_lines_use_a_name_the_file_renamed() -> None:
    # The context is stale (self.cache was renamed self.user_cache): the place is
    # found, but the new lines would reference the old name, which is not what the
    # model meant. Refused with the stale name named.
    original = (
        "class Users:\n"
        "    def __init__(self, conn):\n"
        "        self.conn = conn\n"
        "        self.user_cache = {}\n"
        "\n"
        "    def get(self, uid):\n"
        "        if uid in self.user_cache:\n"
        "            return self.user_cache[uid]\n"
        "        return None\n"
    )
    search = original.replace("user_cache", "cache")
    replace = search.replace(
        "        return None\n",
        "        user = self.conn.query(uid)\n        self.cache[uid] = user\n        return user\n",
    )
    out = run(original, search, replace)
    assert not out.ok
    assert "stale" in (out.results[0].message or "")
    assert "cache" in (out.results[0].message or "")


def test_fuzzy_still_applies_when_new_lines_avoid_the_stale_names() -> None:
    original = (
        "class Users:\n"
        "    def __init__(self, conn):\n"
        "        self.conn = conn\n"
        "        self.user_cache = {}\n"
        "\n"
        "    def get(self, uid):\n"
        "        return None\n"
    )
    search = original.replace("user_cache", "cache")
    replace = search.replace("        return None\n", "        return self.conn.query(uid)\n")
    text, strategy = applied(original, search, replace)
    assert strategy == "fuzzy"
    assert text == original.replace("return None", "return self.conn.query(uid)")


def test_added_lines_take_the_trailing_whitespace_the_search_lost() -> None:
    # Markdown hard breaks: the list lines end in two spaces; the model's copy lost
    # them, so the line it adds between two such lines gets them too.
    original = "## Needs\n\n- Python  \n- Node  \n- Docker  \n"
    search = "## Needs\n\n- Python\n- Node\n- Docker\n"
    replace = "## Needs\n\n- Python\n- Node\n- Redis\n- Docker\n- Make\n"
    text, strategy = applied(original, search, replace)
    assert strategy == "trailing_whitespace"
    # "- Make" ends the file: no line below to agree with, so it stays as written.
    assert text == "## Needs\n\n- Python  \n- Node  \n- Redis  \n- Docker  \n- Make\n"


def test_added_lines_get_no_trailing_whitespace_when_the_search_had_some() -> None:
    original = "a = 1  \nb = 2\n"
    text, _ = applied(original, "a = 1 \nb = 2\n", "a = 1 \nc = 3\nb = 2\n")
    assert text == "a = 1  \nc = 3\nb = 2\n"


def test_elided_piece_matching_exactly_elsewhere_is_not_trusted_when_siblings_needed_reindent() -> (
    None
):
    # Regression (corpus seed 11, #265): the model dropped 4 spaces of indentation.
    # Its first piece '"""' then matched the module docstring exactly (line 3), while
    # the second piece needed indentation ignored. Compared as loosely as the second
    # piece, the first matches twice: refused, never applied at the top of the file.
    original = (
        '"""Module."""\n'
        "\n"
        '"""\n'
        "\n"
        "def f():\n"
        '    """Doc.\n'
        '    """\n'
        "\n"
        "    raise ValueError(\n"
        '        "bad"\n'
        "    )\n"
    )
    search = '"""\n\n# ... existing code ...\n    "bad"\n)\n'
    replace = '# note\n"""\n\n# ... existing code ...\n    "bad"\n)\n'
    out = run(original, search, replace)
    assert not out.ok
    assert out.new_texts == {}


def test_elided_pieces_all_reindented_the_same_way_still_apply() -> None:
    original = "def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n"
    search = "a = 1\n# ...\nd = 4\n"
    replace = "a = 10\n# ...\nd = 4\n"
    text, strategy = applied(original, search, replace)
    assert strategy == "elision"
    assert text == original.replace("a = 1\n", "a = 10\n")
