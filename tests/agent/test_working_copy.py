"""The files a task changes, held in memory between replies: a reply applies whole or not at
all, paths resolve as ``patchwright apply`` resolves them, the tests the task must pass stay
read-only, and a change leaves each file in its own encoding and newlines."""

from __future__ import annotations

from pathlib import Path

from patchwright.agent.working_copy import WorkingCopy
from patchwright.edits import EditError
from patchwright.workspace.paths import confine
from patchwright.workspace.textfile import TextFile, read_text_file


def sr(path: str, search: str, replace: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def copy_of(
    root: Path,
    files: dict[str, str | bytes],
    protected: tuple[str, ...] = (),
    shown: tuple[str, ...] = (),
) -> WorkingCopy:
    for rel, body in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            target.write_bytes(body)
        else:
            target.write_text(body)

    def read(path: str) -> TextFile | None:
        target = confine(root, path)
        return read_text_file(target) if target.is_file() else None

    return WorkingCopy(sorted(files), read, lambda p: confine(root, p), protected, shown)


def test_a_reply_applies_in_memory_and_the_disk_is_untouched(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "def add(a, b):\n    return a - b\n"})
    attempt = wc.apply_reply(sr("calc.py", "    return a - b\n", "    return a + b\n"))
    assert (attempt.ok, attempt.applied) == (True, ["calc.py"])
    assert wc.text("calc.py") == "def add(a, b):\n    return a + b\n"
    assert (tmp_path / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert wc.changed_paths() == ["calc.py"]
    assert wc.diff() == (
        "--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n"
        "-    return a - b\n+    return a + b\n"
    )


def test_a_reply_with_one_unreadable_block_applies_nothing(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    broken = sr("a.py", "x = 1\n", "x = 10\n") + "b.py\n```\n<<<<<<< SEARCH\ny = 2\n```\n"
    attempt = wc.apply_reply(broken)
    assert attempt.kind == "failed" and "nothing was applied" in attempt.feedback
    assert wc.changed_paths() == []
    assert wc.apply_reply("I think the code is fine.").kind == "no_edits"


def test_a_search_that_matches_nothing_says_what_is_there(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "def add(a, b):\n    return a - b\n"})
    attempt = wc.apply_reply(sr("calc.py", "    return a * b\n", "    return a + b\n"))
    assert attempt.kind == "failed" and attempt.outcome is not None
    assert "return a - b" in attempt.feedback  # the closest lines, to copy exactly
    assert wc.changed_paths() == []


def test_a_basename_shared_by_two_files_is_settled_by_where_the_search_text_is(
    tmp_path: Path,
) -> None:
    wc = copy_of(tmp_path, {"a/util.py": "def one():\n    return 1\n",
                            "b/util.py": "def two():\n    return 2\n",
                            "c/same.py": "x = 1\n", "d/same.py": "x = 1\n"})  # fmt: skip
    attempt = wc.apply_reply(sr("util.py", "    return 2\n", "    return 22\n"))
    assert attempt.applied == ["b/util.py"]
    both = wc.apply_reply(sr("same.py", "x = 1\n", "x = 2\n"))
    assert both.kind == "failed" and "c/same.py" in both.feedback and "d/same.py" in both.feedback


def test_an_empty_search_creates_a_new_file_and_the_diff_says_so(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "x = 1\n"})
    attempt = wc.apply_reply(sr("pkg/new.py", "", "VALUE = 3\n"))
    assert attempt.applied == ["pkg/new.py"]
    assert wc.diff().startswith("--- /dev/null\n+++ b/pkg/new.py\n")
    assert wc.changes() == {"pkg/new.py": b"VALUE = 3\n"}


def test_a_path_outside_the_repository_is_refused(tmp_path: Path) -> None:
    wc = copy_of(tmp_path / "repo", {"calc.py": "x = 1\n"})
    attempt = wc.apply_reply(sr("../outside.py", "", "evil = 1\n"))
    assert attempt.kind == "failed" and "Use a path of the repository." in attempt.feedback
    assert not (tmp_path / "outside.py").exists() and wc.changed_paths() == []


def test_the_tests_the_task_must_pass_are_read_only(tmp_path: Path) -> None:
    files = {"calc.py": "x = 1\n", "test_calc.py": "def test_x():\n    assert x == 2\n"}
    wc = copy_of(tmp_path, files, protected=("test_calc.py",))
    only_tests = wc.apply_reply(sr("test_calc.py", "    assert x == 2\n", "    pass\n"))
    assert only_tests.kind == "failed" and "Change the code instead." in only_tests.feedback
    shown = copy_of(tmp_path, files, protected=("test_calc.py",), shown=tuple(files))
    named = shown.apply_reply(sr("test_calc.py", "    assert x == 2\n", "    pass\n"))
    assert named.feedback.endswith("Change the code in calc.py instead.")
    both = wc.apply_reply(
        sr("test_calc.py", "    assert x == 2\n", "    pass\n")
        + sr("calc.py", "x = 1\n", "x = 2\n")
    )
    assert both.applied == ["calc.py"]
    assert any("read-only, so your change to it was ignored" in n for n in both.notes)


def test_a_reply_that_only_resends_the_tests_unchanged_is_told_so(tmp_path: Path) -> None:
    tests = "def test_x():\n    assert x == 2\n"
    files = {"calc.py": "x = 1\n", "test_calc.py": tests}
    wc = copy_of(tmp_path, files, protected=("test_calc.py",), shown=tuple(files))
    resent = wc.apply_reply(f"test_calc.py\n```python\n{tests}```\n")
    assert resent.kind == "failed"
    assert resent.feedback == (
        "Your reply only sent test_calc.py back unchanged, so nothing changed; it holds the "
        "tests the task must make pass and cannot be edited. Change the code in calc.py instead."
    )
    assert wc.changed_paths() == []
    try:
        wc.write("test_calc.py", "")
    except EditError as exc:
        assert "read-only" in str(exc)
    else:
        raise AssertionError("a protected file was written")


def test_each_file_keeps_its_encoding_bom_and_newlines(tmp_path: Path) -> None:
    crlf = b"\xef\xbb\xbfname = 'caf\xc3\xa9'\r\nsize = 1\r\n"
    wc = copy_of(tmp_path, {"menu.py": crlf, "plain.py": "a = 1\n"})
    wc.apply_reply(sr("menu.py", "size = 1\n", "size = 2\n") + sr("plain.py", "a = 1\n", "a = 2\n"))
    assert wc.changes() == {
        "menu.py": b"\xef\xbb\xbfname = 'caf\xc3\xa9'\r\nsize = 2\r\n",
        "plain.py": b"a = 2\n",
    }


def test_a_file_changed_back_is_no_change_but_stays_touched(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "x = 1\n"})
    wc.apply_reply(sr("calc.py", "x = 1\n", "x = 2\n"))
    wc.apply_reply(sr("calc.py", "x = 2\n", "x = 1\n"))
    assert wc.changed_paths() == [] and wc.diff() == "" and wc.changes() == {}
    assert wc.touched() == {"calc.py": b"x = 1\n"}


def test_a_whole_file_write_and_a_delete(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "x = 1\n", "old.py": "gone = True\n"})
    assert wc.write("./calc.py", "x = 3\n") == "calc.py"
    assert wc.write("old.py", None) == "old.py"
    assert wc.changes() == {"calc.py": b"x = 3\n", "old.py": None}
    assert "--- a/old.py\n+++ /dev/null" in wc.diff()
    try:
        wc.write("never.py", None)
    except EditError as exc:
        assert "never.py" in str(exc)
    else:
        raise AssertionError("a missing file was deleted")


def test_another_candidate_starts_from_the_same_snapshot(tmp_path: Path) -> None:
    wc = copy_of(tmp_path, {"calc.py": "x = 1\n"})
    wc.apply_reply(sr("calc.py", "x = 1\n", "x = 2\n"))
    state = wc.snapshot()
    wc.apply_reply(sr("calc.py", "x = 2\n", "x = 3\n"))
    wc.restore(state)
    assert wc.text("calc.py") == "x = 2\n"
    (tmp_path / "calc.py").write_text("x = 42\n")  # the person edited the file on disk
    wc.absorb(["calc.py"])
    assert wc.text("calc.py") == "x = 42\n"
    wc.reset()
    assert wc.text("calc.py") == "x = 1\n"  # the original, as first read


def whole(path: str, text: str, fence: str = "javascript") -> str:
    return f"{path}\n```{fence}\n{text}```\n"


FIXED_JS = "const add = (a, b) => a + b;\nmodule.exports = { add };\n"


def test_a_file_written_under_the_prompts_example_path_goes_to_the_one_file_shown(
    tmp_path: Path,
) -> None:
    """A small model answering about main.js wrote its whole file as ``src/ops.js`` — the
    edit prompt's example — which created a stray file and left main.js broken."""
    files = {"main.js": "const add = (a, b) => a - b;\nmodule.exports = { add };\n",
             "main.test.js": "require('./main.js');\n"}  # fmt: skip
    wc = copy_of(tmp_path, files, protected=("main.test.js",), shown=("main.js",))
    attempt = wc.apply_reply(whole("src/ops.js", FIXED_JS))
    assert (attempt.ok, attempt.applied) == (True, ["main.js"])
    assert wc.text("main.js") == FIXED_JS and wc.changed_paths() == ["main.js"]
    assert any("example path: applied to main.js" in note for note in attempt.notes)


def test_two_blocks_under_the_example_path_are_noted_once(tmp_path: Path) -> None:
    files = {"main.js": "const add = (a, b) => a - b;\nmodule.exports = { add };\n"}
    wc = copy_of(tmp_path, files, shown=("main.js",))
    attempt = wc.apply_reply(
        whole("src/ops.js", files["main.js"]) + "\n" + whole("src/ops.js", FIXED_JS)
    )
    assert sum("example path" in note for note in attempt.notes) == 1


def test_with_several_files_shown_the_example_path_is_refused_naming_them(
    tmp_path: Path,
) -> None:
    files = {"a.js": "let a = 1;\n", "b.js": "let b = 2;\n"}
    wc = copy_of(tmp_path, files, shown=("a.js", "b.js"))
    attempt = wc.apply_reply(whole("src/ops.js", FIXED_JS))
    assert attempt.kind == "failed" and wc.changed_paths() == []
    assert "src/ops.js is the instructions' example" in attempt.feedback
    assert "(a.js, b.js)" in attempt.feedback


def test_a_repository_that_has_the_example_path_keeps_it(tmp_path: Path) -> None:
    files = {"src/ops.js": "let x = 1;\n", "main.js": "let y = 2;\n"}
    wc = copy_of(tmp_path, files, shown=("main.js",))
    attempt = wc.apply_reply(whole("src/ops.js", FIXED_JS))
    assert (attempt.ok, attempt.applied) == (True, ["src/ops.js"])


def test_a_whole_file_under_a_path_not_here_goes_to_the_shown_file_of_that_name(
    tmp_path: Path,
) -> None:
    """Answering about main.js, a small model wrote ``src/main.js`` (the prompt's example
    lives under src/): a new file, main.js left as it was and its test failing as before."""
    files = {"main.js": "const add = (a, b) => a - b;\nmodule.exports = { add };\n",
             "main.test.js": "require('./main.js');\n"}  # fmt: skip
    wc = copy_of(tmp_path, files, protected=("main.test.js",), shown=("main.js",))
    attempt = wc.apply_reply(whole("src/main.js", FIXED_JS))
    assert (attempt.ok, attempt.applied) == (True, ["main.js"])
    assert wc.text("main.js") == FIXED_JS and wc.changed_paths() == ["main.js"]
    assert "src/main.js does not exist: applied to main.js" in "\n".join(attempt.notes)


def test_a_new_file_that_shares_only_a_name_with_a_shown_file_stays_new(tmp_path: Path) -> None:
    files = {"main.js": "const add = (a, b) => a - b;\nmodule.exports = { add };\n"}
    wc = copy_of(tmp_path, files, shown=("main.js",))
    server = "const http = require('node:http');\nhttp.createServer().listen(8080);\n"
    attempt = wc.apply_reply(whole("bin/main.js", server))
    assert attempt.applied == ["bin/main.js"] and wc.text("main.js") == files["main.js"]


def test_a_block_naming_no_file_is_tried_against_the_one_file_shown_to_edit(
    tmp_path: Path,
) -> None:
    """Its SEARCH text, the model's own earlier version, is in no file: the reply is told
    that it is not in main.js, with the lines nearest it, not that it names no file."""
    files = {"main.js": "const f = (x) => {\n  return x - 1;\n};\n",
             "main.test.js": "console.assert(f(2) === 3);\n"}  # fmt: skip
    wc = copy_of(tmp_path, files, protected=("main.test.js",), shown=tuple(files))
    stale = "<<<<<<< SEARCH\nfunction f(x) {\n  return x - 1;\n=======\nfunction f(x) {\n  return x + 1;\n>>>>>>> REPLACE\n"
    attempt = wc.apply_reply(f"The file is `main.js`.\n```javascript\n{stale}```\n")
    assert attempt.kind == "failed"
    assert "main.js" in attempt.feedback and "names no file" not in attempt.feedback
    fixed = stale.replace("function f(x) {", "const f = (x) => {")
    assert wc.apply_reply(f"```javascript\n{fixed}```\n").ok
    assert wc.text("main.js") == "const f = (x) => {\n  return x + 1;\n};\n"
