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


def test_heredoc_bodies_are_kept_on_their_delimiter_word() -> None:
    cat, bash = parse("cat <<EOF | bash\nrm -rf x\n  echo y\nEOF\n")
    [(op, word)] = cat.redirects
    assert (op, word.heredoc) == ("<<", "rm -rf x\n  echo y\n")
    assert bash.piped_from is cat and bash.argv == ["bash"]
    [tabbed] = parse("cat <<-END\n\tline\n\tEND")
    assert tabbed.redirects[0][1].heredoc == "line\n"


def test_an_unquoted_heredoc_runs_its_substitutions_a_quoted_one_does_not() -> None:
    [unquoted] = parse("cat <<EOF > f\n$(rm -rf x) `id`\nEOF")
    [quoted] = parse("cat <<'EOF' > f\n$(rm -rf x)\nEOF")
    assert unquoted.subs == ["rm -rf x", "id"] and quoted.subs == []


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ("$'\\x72m' -rf x", ["rm", "-rf", "x"]),
        ("$'\\162\\155' x", ["rm", "x"]),
        ("$'a\\tb' $'it\\'s'", ["a\tb", "it's"]),
        ('$"translated" x', ["translated", "x"]),
    ],
)
def test_ansi_c_quotes_are_decoded(line: str, argv: list[str]) -> None:
    assert argvs(line) == [argv]


def test_each_command_knows_its_subshell_depth_and_what_follows_it() -> None:
    cmds = parse("(cd a; b) && cd c && d | e & f")
    assert [(c.argv[0], c.depth, c.next_op) for c in cmds] == [
        ("cd", 1, ";"),
        ("b", 1, ")"),
        ("cd", 0, "&&"),
        ("d", 0, "|"),
        ("e", 0, "&"),
        ("f", 0, None),
    ]
    assert [c.in_current_shell for c in cmds] == [False, False, True, False, False, True]
