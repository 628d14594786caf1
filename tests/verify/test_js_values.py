"""A failed JavaScript ``assert(a === b)`` says what it compared: the script runs again in a
scratch copy with that comparison printing both sides, and the values join the output.
HumanEvalFix JavaScript-15's model saw only ``actual: false, expected: true`` and sent the
same wrong body four times."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchwright.sandbox import Sandbox
from patchwright.verify.runners.js_values import comparison
from patchwright.verify.testrun import run_tests

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def test_the_first_argument_of_an_assertion_splits_at_its_one_comparison() -> None:
    line = "  console.assert(stringSequence(0) === '0')"
    start, end, left, op, right = comparison(line) or (0, 0, "", "", "")
    assert (left, op, right) == ("stringSequence(0)", "===", "'0'")
    assert line[start:end] == "stringSequence(0) === '0'"
    assert comparison("assert(f('a === b', [1, 2]) == g(3), 'the message');")[2:] == (  # type: ignore[index]
        "f('a === b', [1, 2])",
        "==",
        "g(3)",
    )
    assert comparison("assert.ok(a !== b)") is None
    assert comparison("assert(a === b && c === d)") is None
    assert comparison("assert(x ? a === b : c)") is None
    assert comparison("assert.strictEqual(a, b)") is None
    assert comparison("expect(a === b)") is None


MAIN = """/* Numbers from 0 to n inclusive, separated by spaces. */
const stringSequence = (n) => {
  return [...Array(n).keys()].join(' ')
}

module.exports = { stringSequence };
"""
TEST = """const assert = require('node:assert');
console.assert = (cond, ...msg) =>
  assert.ok(cond, msg.length ? msg.join(' ') : 'console.assert failed');
const { stringSequence } = require('./main.js');

const testStringSequence = () => {
  console.assert(stringSequence(3) === '0 1 2 3')
}

testStringSequence()
"""


@needs_node
def test_the_values_a_failed_console_assert_compared_join_the_output(
    repo: Path, sandbox: Sandbox
) -> None:
    files = {"main.js": MAIN, "main.test.js": TEST}
    for rel, text in files.items():
        (repo / rel).write_text(text, encoding="utf-8")

    run = run_tests(repo, sandbox, "node main.test.js", timeout=60)

    assert run.exit_code == 1
    lines = run.output.splitlines()
    named = next(i for i, x in enumerate(lines) if x.startswith("AssertionError"))
    assert lines[named + 1] == (
        "main.test.js:7 compared `stringSequence(3) === '0 1 2 3'`: "
        'left `"0 1 2"`, right `"0 1 2 3"`'
    )
    assert "at testStringSequence (main.test.js:7:" in run.output  # the stack stays
    assert "actual: false" not in run.output  # node's fields, taken for the values, do not
    assert {rel: (repo / rel).read_text() for rel in files} == files  # the repository untouched


@needs_node
def test_characters_that_print_as_nothing_are_shown_as_escapes(
    repo: Path, sandbox: Sandbox
) -> None:
    # a shift past `z` makes C1 controls, which a terminal and a reader see as nothing; U+2028
    # would end the probe's line for str.splitlines and lose both values
    (repo / "main.js").write_text(
        "const shift = (s) => String.fromCharCode(0x85) + s + '\\u2028';\n"
        "module.exports = { shift };\n"
    )
    (repo / "main.test.js").write_text(
        TEST.replace("stringSequence", "shift").replace("(3) === '0 1 2 3'", "('a') === 'f'")
    )

    run = run_tests(repo, sandbox, "node main.test.js", timeout=60)

    assert "main.test.js:7 compared `shift('a') === 'f'`: " in run.output
    assert 'left `"\\u0085a\\u2028"`, right `"f"`' in run.output


@needs_node
def test_a_passing_script_or_another_failure_adds_nothing(repo: Path, sandbox: Sandbox) -> None:
    (repo / "main.js").write_text(MAIN)
    (repo / "ok.test.js").write_text("const assert = require('node:assert');\nassert(1 === 1);\n")
    (repo / "boom.test.js").write_text("throw new Error('boom');\n")

    assert "compared" not in run_tests(repo, sandbox, "node ok.test.js", timeout=60).output
    boom = run_tests(repo, sandbox, "node boom.test.js", timeout=60)
    assert boom.exit_code == 1 and "compared" not in boom.output


@needs_node
def test_long_values_that_part_say_where(repo: Path, sandbox: Sandbox) -> None:
    (repo / "main.js").write_text(MAIN)
    (repo / "main.test.js").write_text(
        TEST.replace("(3) === '0 1 2 3'", "(12) === '0 1 2 3 4 5 6 7 8 9 10 11 12'")
    )

    run = run_tests(repo, sandbox, "node main.test.js", timeout=60)

    lines = run.output.splitlines()
    named = next(i for i, x in enumerate(lines) if x.startswith("AssertionError"))
    assert lines[named + 2] == (
        "they part after `… 5 6 7 8 9 10 11`: right has ` 12` there, left has not"
    )


@needs_node
def test_each_failed_case_of_nodes_runner_says_what_it_compared(
    repo: Path, sandbox: Sandbox
) -> None:
    (repo / "main.js").write_text("const add = (a, b) => a - b;\nmodule.exports = { add };\n")
    (repo / "main.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { add } = require('./main.js');\n"
        "test('adds', () => {\n  assert(add(2, 3) === 5);\n});\n"
        "test('adds with a message', () => {\n  assert.ok(add(2, 2) == 4, 'sums');\n});\n"
    )

    run = run_tests(repo, sandbox, "node --test", timeout=60)

    details = {k: c.detail.splitlines()[-1] for k, c in run.cases.items()}
    assert details == {
        "main.test.js::adds": "main.test.js:5 compared `add(2, 3) === 5`: left `-1`, right `5`",
        "main.test.js::adds with a message": (
            "main.test.js:8 compared `add(2, 2) == 4`: left `0`, right `4`"
        ),
    }


@needs_node
def test_an_assertion_over_several_lines_is_read_whole(repo: Path, sandbox: Sandbox) -> None:
    (repo / "main.js").write_text(MAIN)
    spread = "console.assert(\n    stringSequence(3) === '0 1 2 3'\n  )\n"
    (repo / "main.test.js").write_text(
        TEST.replace("console.assert(stringSequence(3) === '0 1 2 3')\n", spread)
    )

    run = run_tests(repo, sandbox, "node main.test.js", timeout=60)

    assert (
        "main.test.js:7 compared `stringSequence(3) === '0 1 2 3'`: left `\"0 1 2\"`" in run.output
    )
