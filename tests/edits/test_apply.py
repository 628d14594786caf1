"""apply_edits: many files, in order, all or nothing; already-applied; imports kept."""

from __future__ import annotations

from patchwright.edits import Edit, apply_edits, keep_applicable, render_retry_message


def sr(path: str, search: str, replace: str) -> Edit:
    return Edit(path, "replace", search, replace, "test")


def test_blocks_apply_in_order_against_updated_text() -> None:
    edits = [sr("a.py", "x = 1\n", "x = 2\n"), sr("a.py", "x = 2\n", "x = 3\n")]
    out = apply_edits(edits, {"a.py": "x = 1\n"})
    assert out.ok and out.new_texts == {"a.py": "x = 3\n"}


def test_one_failed_block_means_nothing_changes_but_all_blocks_report() -> None:
    files = {"a.py": "a = 1\n", "b.py": "b = 1\n"}
    edits = [
        sr("a.py", "a = 1\n", "a = 2\n"),
        sr("b.py", "nope\n", "x\n"),
        sr("b.py", "b = 1\n", "b = 2\n"),
    ]
    out = apply_edits(edits, files)
    assert not out.ok
    assert out.new_texts == {}
    assert [r.status for r in out.results] == ["applied", "failed", "applied"]
    assert files == {"a.py": "a = 1\n", "b.py": "b = 1\n"}


def test_already_applied_when_search_gone_and_replace_present() -> None:
    out = apply_edits([sr("a.py", "x = 1\n", "x = 2\n")], {"a.py": "y = 0\nx = 2\n"})
    assert out.ok
    assert out.results[0].status == "already_applied"
    assert out.new_texts == {}


def test_already_applied_when_replace_extends_search_and_is_there() -> None:
    text = "import os\nimport sys\n\nprint(os, sys)\n"
    out = apply_edits([sr("a.py", "import os\n", "import os\nimport sys\n")], {"a.py": text})
    assert out.ok and out.results[0].status == "already_applied" and out.new_texts == {}


def test_empty_search_creates_a_missing_file_or_fills_an_empty_one() -> None:
    out = apply_edits([sr("new.py", "", "A = 1\n"), sr("empty.py", "", "B = 2")], {"empty.py": ""})
    assert out.ok
    assert out.new_texts == {"new.py": "A = 1\n", "empty.py": "B = 2\n"}


def test_empty_search_on_non_empty_file_fails_with_advice() -> None:
    out = apply_edits([sr("a.py", "", "X = 1\n")], {"a.py": "Y = 2\n"})
    assert not out.ok and "empty SEARCH" in (out.results[0].message or "")


def test_search_in_missing_file_fails() -> None:
    out = apply_edits([sr("gone.py", "x\n", "y\n")], {})
    assert not out.ok and "does not exist" in (out.results[0].message or "")


def test_create_delete_and_whole() -> None:
    edits = [
        Edit("n.py", "create", "", "N = 1\n", "t"),
        Edit("old.py", "delete", "", "", "t"),
        Edit("w.py", "whole", "", "W = 2\n", "t"),
    ]
    out = apply_edits(edits, {"old.py": "O\n", "w.py": "W = 1\n"})
    assert out.ok
    assert out.new_texts == {"n.py": "N = 1\n", "old.py": None, "w.py": "W = 2\n"}


def test_whole_file_with_elided_code_is_refused() -> None:
    edit = Edit("w.py", "whole", "", "def f():\n    # ... existing code ...\n", "t")
    out = apply_edits([edit], {"w.py": "def f():\n    return 1\n"})
    assert not out.ok


def test_create_over_an_existing_file_fails() -> None:
    out = apply_edits([Edit("a.py", "create", "", "new\n", "t")], {"a.py": "old\n"})
    assert not out.ok


def test_final_newline_presence_is_kept() -> None:
    out = apply_edits([sr("a.txt", "b\n", "c\n")], {"a.txt": "a\nb"})
    assert out.new_texts == {"a.txt": "a\nc"}


def test_crlf_text_stays_crlf() -> None:
    out = apply_edits([sr("a.txt", "b\n", "c\nd\n")], {"a.txt": "a\r\nb\r\n"})
    assert out.new_texts == {"a.txt": "a\r\nc\r\nd\r\n"}


def test_empty_file_with_search_fails_cleanly() -> None:
    out = apply_edits([sr("a.py", "x\n", "y\n")], {"a.py": ""})
    assert not out.ok and "empty" in (out.results[0].message or "")


def test_removed_import_still_used_is_restored_with_a_note() -> None:
    old = "import os\nimport sys\n\n\ndef f():\n    return os.getcwd(), sys.argv\n"
    edit = sr("m.py", "import os\nimport sys\n", "import sys\n")
    out = apply_edits([edit], {"m.py": old})
    assert out.ok
    assert (
        out.new_texts["m.py"]
        == "import sys\nimport os\n\n\ndef f():\n    return os.getcwd(), sys.argv\n"
    )
    assert "import os" in out.notes[0]


def test_removed_unused_import_stays_removed() -> None:
    old = "import os\nimport sys\n\nprint(sys.argv)\n"
    out = apply_edits([sr("m.py", "import os\n", "")], {"m.py": old})
    assert out.new_texts["m.py"] == "import sys\n\nprint(sys.argv)\n" and out.notes == []


def test_retry_message_names_failed_blocks_closest_lines_and_the_good_ones() -> None:
    text = "def area(r):\n    return 3.14 * r * r\n\n\ndef perimeter(r):\n    return 2 * 3.14 * r\n"
    edits = [
        sr("geo.py", "def area(r):\n", "def area(r: float):\n"),
        sr("geo.py", "def perimeter(radius):\n    return 2 * 3.14 * radius\n", "x\n"),
    ]
    out = apply_edits(edits, {"geo.py": text})
    msg = render_retry_message(out)
    assert "1 of 2" in msg and "Block 2" in msg
    assert "5 | def perimeter(r):" in msg
    assert "Block(s) 1 matched" in msg
    assert "Resend ONLY the failed" in msg
    assert keep_applicable(edits, out, [sr("geo.py", "a", "b")]) == [
        edits[0],
        sr("geo.py", "a", "b"),
    ]


def test_ambiguous_failure_lists_the_lines() -> None:
    out = apply_edits([sr("a.py", "x = 1\n", "x = 2\n")], {"a.py": "x = 1\ny\nx = 1\n"})
    assert "lines 1, 3" in (out.results[0].message or "")


def test_restored_import_in_crlf_text_keeps_crlf_line_endings() -> None:
    original = "from os import (\r\n    path,\r\n    sep,\r\n)\r\n\r\nprint(path, sep)\r\n"
    search = "    path,\r\n    sep,\r\n"
    out = apply_edits([Edit("m.py", "replace", search, "    path,\r\n", "t")], {"m.py": original})
    assert out.ok
    new = out.new_texts["m.py"] or ""
    assert "from os import sep" in new
    assert "\n" not in new.replace("\r\n", "")  # no bare LF slipped in
    assert any("restored from os import sep" in n for n in out.notes)


def test_whole_file_holding_only_the_changed_definition_keeps_the_rest_of_the_file() -> None:
    current = ('"""Stats."""\n\nimport math\n\n\ndef total(xs):\n    return sum(xs)\n\n\n'
               "@staticmethod\ndef mean(xs):\n    return 0\n\n\nLIMIT = 3\n")  # fmt: skip
    reply = "import math\n\n\n@staticmethod\ndef mean(xs):\n    return sum(xs) / len(xs)\n"
    out = apply_edits([Edit("stats.py", "whole", "", reply, "t")], {"stats.py": current})
    assert out.ok and out.results[0].strategy == "merge"
    assert "left out total" in (out.results[0].message or "")
    assert out.new_texts["stats.py"] == current.replace("return 0", "return sum(xs) / len(xs)")


def test_whole_file_that_drops_a_definition_and_adds_other_code_is_refused_naming_it() -> None:
    current = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return sum(xs)\n"
    reply = "import statistics\n\n\ndef mean(xs):\n    return statistics.mean(xs)\n"
    out = apply_edits([Edit("stats.py", "whole", "", reply, "t")], {"stats.py": current})
    assert not out.ok
    assert "drops total" in (out.results[0].message or "")
    assert "REPLACE is empty" in (out.results[0].message or "")


def test_whole_file_keeping_every_definition_applies_and_a_search_replace_may_delete() -> None:
    current = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return 0\n"
    whole = Edit("stats.py", "whole", "", current.replace("return 0", "return 1"), "t")
    assert apply_edits([whole], {"stats.py": current}).ok
    removal = sr("stats.py", "def total(xs):\n    return sum(xs)\n", "")
    out = apply_edits([removal], {"stats.py": current})
    assert out.ok and "total" not in (out.new_texts["stats.py"] or "")


def test_dropped_definitions_ignore_other_languages_and_unparsable_text() -> None:
    edit = Edit("notes.txt", "whole", "", "short\n", "t")
    assert apply_edits([edit], {"notes.txt": "def a():\n    pass\n"}).ok
    broken = Edit("b.py", "whole", "", "def (:\n", "t")
    assert apply_edits([broken], {"b.py": "def a():\n    pass\n"}).ok


def test_a_form_feed_in_the_file_does_not_shift_the_merged_definitions() -> None:
    current = "def total(xs):\n    return sum(xs)\n\x0c\n\ndef mean(xs):\n    return 0\n"
    reply = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    out = apply_edits([Edit("stats.py", "whole", "", reply, "t")], {"stats.py": current})
    assert out.ok
    assert out.new_texts["stats.py"] == current.replace("return 0", "return sum(xs) / len(xs)")


def test_a_search_that_runs_past_the_end_of_the_file_is_explained_not_a_crash() -> None:
    # the 1.5B model's reply in a review: three-space indents, 18 lines matched fuzzily from
    # line 13 of a 29-line file; the explanation's excerpt read past the last line
    from patchwright.edits.explain import explain_not_found
    from patchwright.edits.match import NotFound

    file_lines = [
        '"""Reports: the value of the stock and a printable summary."""',
        "",
        "from __future__ import annotations",
        "",
        "from inventory.items import Item",
        "",
        "",
        "def total_value(items: list[Item]) -> float:",
        '    """The value of all the stock."""',
        "    return sum(item.value() for item in items)",
        "",
        "",
        "def count_units(items: list[Item]) -> int:",
        '    """How many units are in stock, all items together."""',
        "    return int(sum(item.quantity for item in items))",
        "",
        "",
        "def average_price(items: list[Item]) -> float:",
        '    """The mean unit price of the items (0.0 for no items)."""',
        "    if not items:",
        "        return 0.0",
        "    return sum(item.price for item in items) / len(items)",
        "",
        "",
        "def summary(items: list[Item]) -> str:",
        '    """One line per item, then the total value."""',
        "    lines = [item.describe() for item in items]",
        '    lines.append(f"total: {total_value(items):.2f}")',
        '    return "\\n".join(lines)',
    ]
    # the model's copy of the file's last 18 lines, one space less indented
    search = [line[1:] if line.startswith(" ") else line for line in file_lines[-18:]]
    miss = NotFound("the closest lines differ in relative indentation", [], "fuzzy", line=13)
    message, shown, line = explain_not_found(file_lines, search, miss)
    assert line == 13 and "relative indentation" in message
    assert shown is not None and shown.splitlines()[-1].startswith("29 | ")
