"""The syntax gate: every touched file must still parse; only new errors block."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from patchwright.verify import Baseline, SyntaxGate
from patchwright.verify.syntax import css_problems, json_problems, python_problems, toml_problems
from patchwright.verify.treesitter import parser_for

GATE = [SyntaxGate()]


def test_python_syntax_error_is_reported_with_line_and_column() -> None:
    (problem,) = python_problems("a.py", "def f(:\n    pass\n")
    assert problem.line == 1 and problem.code == "syntax"
    assert "column" in problem.detail


def test_json_toml_and_css_errors_name_the_line() -> None:
    assert json_problems("a.json", '{\n  "a": 1,\n}\n')[0].line == 3
    assert toml_problems("a.toml", "[x]\na = \n")[0].line == 2
    (css,) = css_problems("a.css", "a { color: red; }\n/* } */\nb { color: blue;\n")
    assert css.line == 3 and "never closed" in css.message
    assert css_problems("a.css", 'a::after { content: "}"; }\n') == []
    assert css_problems("a.css", "a { }\n}\n")[0].line == 2


def test_new_errors_in_several_languages_fail_the_gate(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"a.py": "x = 1\n", "d.json": "{}\n", "s.sh": "echo hi\n", "c.css": "a {}\n"})
    base = baseline()
    write({
        "a.py": "x = (1\n",
        "d.json": '{"a": }\n',
        "s.sh": "if true; then\n  echo hi\n",
        "c.css": "a {\n",
        "new.toml": "[table\n",
    })  # fmt: skip
    result = check(base, ["a.py", "d.json", "s.sh", "c.css", "new.toml"], gates=GATE)["syntax"]
    assert result.status == "failed" and not result.ok
    assert sorted(p.path for p in result.new_problems) == [
        "a.py", "c.css", "d.json", "new.toml", "s.sh"
    ]  # fmt: skip
    shell = next(p for p in result.new_problems if p.path == "s.sh")
    assert shell.code == "bash" and shell.line is not None


def test_a_preexisting_syntax_error_does_not_block_and_a_fix_is_reported(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"broken.py": "def f(:\n", "ok.py": "y = 2\n", "old.json": "{,}\n"})
    base = baseline()
    write({"broken.py": "# a comment above\ndef f(:\n", "ok.py": "y = 3\n", "old.json": "{}\n"})
    result = check(base, ["broken.py", "ok.py", "old.json"], gates=GATE)["syntax"]
    assert result.status == "passed", result.output
    assert [p.path for p in result.fixed_problems] == ["old.json"]


def test_files_without_a_checker_make_the_gate_skip_with_a_reason(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"notes.txt": "hello\n"})
    result = check(baseline(), ["notes.txt"], gates=GATE)["syntax"]
    assert result.status == "skipped" and result.reason


def test_other_languages_use_tree_sitter_or_say_why_not(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"main.go": "package main\n"})
    base = baseline()
    write({"main.go": "package main\nfunc main( {\n"})
    result = check(base, ["main.go"], gates=GATE)["syntax"]
    parser, why = parser_for("go")
    if parser is None:  # offline without the grammar: skipped, and the reason says so
        assert result.status == "skipped" and why in (result.reason or "")
        assert "grammar" in why
    else:
        assert result.status == "failed" and result.new_problems[0].line == 2


def test_deleted_and_missing_touched_files_are_ignored(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:  # fmt: skip
    write({"gone.py": "x = 1\n"})
    base = baseline()
    (repo / "gone.py").unlink()
    result = check(base, ["gone.py", "never.py"], gates=GATE)["syntax"]
    assert result.status == "skipped"
