"""The shell-word splitter finds every simple command, honouring quotes and nesting."""

from __future__ import annotations

import pytest

from patchwright.sandbox.shellparse import ShellSyntaxError, parse


def argvs(line: str) -> list[list[str]]:
    return [c.argv for c in parse(line)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ls -la", [["ls", "-la"]]),
        ("a; b && c || d", [["a"], ["b"], ["c"], ["d"]]),
        ("a | b |& c", [["a"], ["b"], ["c"]]),
        ("a & b", [["a"], ["b"]]),
        ("(a; b)", [["a"], ["b"]]),
        ("echo 'a b' \"c d\" e\\ f", [["echo", "a b", "c d", "e f"]]),
        ("echo 'it''s'", [["echo", "its"]]),
        ("FOO=1 make", [["FOO=1", "make"]]),
        ("a # comment ; rm -rf /", [["a"]]),
        ("a\nb", [["a"], ["b"]]),
        ("a \\\n  b", [["a", "b"]]),
        ("if x; then y; fi", [["x"], ["y"]]),
        ("for i in 1 2; do echo $i; done", [["echo", "$i"]]),
        ("cat <<EOF\nsudo x\nEOF\nls", [["cat"], ["ls"]]),
        ("cat <<-'END'\n\tsudo x\n\tEND\nls", [["cat"], ["ls"]]),
    ],
)
def test_splits_into_simple_commands(line: str, expected: list[list[str]]) -> None:
    assert argvs(line) == expected


def test_redirections_are_separate_from_words() -> None:
    [cmd] = parse("make 2>&1 >out.log <in.txt &>>all.log")
    assert cmd.argv == ["make"]
    assert [(op, w.text) for op, w in cmd.redirects] == [
        (">&", "1"),
        (">", "out.log"),
        ("<", "in.txt"),
        ("&>>", "all.log"),
    ]


def test_substitutions_are_collected_but_single_quotes_are_text() -> None:
    [cmd] = parse("echo $(a $(b)) \"`c`\" '$(d)' <(e)")
    assert cmd.subs == ["a $(b)", "c", "e"]


def test_pipeline_and_background_structure() -> None:
    first, second, third = parse("a | b & c")
    assert first.pipes_into and second.piped_from is first
    assert second.background and third.piped_from is None


def test_function_bodies_are_marked() -> None:
    cmds = parse("f() { g | f & }; h")
    assert [(c.argv, c.function) for c in cmds] == [(["g"], "f"), (["f"], "f"), (["h"], None)]


@pytest.mark.parametrize("line", ["echo 'x", 'echo "x', "echo $(x", "echo `x"])
def test_unbalanced_input_is_an_error(line: str) -> None:
    with pytest.raises(ShellSyntaxError):
        parse(line)
