"""The function a failing test convicts in a Go, Rust or JavaScript file: the one the task
names, else the one the test calls — shown with the test as a person would read it."""

from __future__ import annotations

from patchwright.agent.pointed_lines import where_in_tests
from patchwright.agent.relations.brace_suspects import find_brace_suspects, is_brace_stub
from patchwright.verify import TestCase, TestRun

LIB = (
    "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n"
    "fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[cfg(test)]\nmod tests;\n"
)
TESTS = (  # HumanEvalFix's layout: the attribute at the margin, the function indented
    "use super::*;\n\n#[test]\n    fn test_add() {\n        assert!(add(2, 3) == 5);\n    }\n"
)
CASE = TestCase("src/lib.rs::tests::test_add", "failed", "src/tests.rs", 4, "assertion failed")
RUN = TestRun("cargo test", 101, "", {CASE.id: CASE}, per_test=True)
TEXTS = {"src/lib.rs": LIB, "src/tests.rs": TESTS}


def test_the_function_the_failing_test_calls_is_convicted_with_the_test_dedented() -> None:
    [suspect] = find_brace_suspects(set(), RUN, [CASE.id], "src/lib.rs", TEXTS, "")

    assert (suspect.name, suspect.path, suspect.test_path) == ("add", "src/lib.rs", "src/tests.rs")
    assert suspect.code == "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}"
    assert suspect.test_code.startswith("#[test]\nfn test_add() {\n    assert!(add(2, 3)")
    assert suspect.says == "assertion failed"


def test_a_block_comment_above_the_function_keeps_its_layout() -> None:
    # shown flush left, the comment came back so from the model, and into the file
    lib = "/* Adds.\n  add(1, 2) -> 3\n  */\nconst add = (a, b) => {\n  return a - b;\n}\n"
    test = "const { add } = require('./main.js');\nconsole.assert(add(1, 2) === 3)\n"
    case = TestCase("main.test.js", "failed", "main.test.js", 2, "console.assert failed")
    run = TestRun("node main.test.js", 1, "", {case.id: case}, per_test=True)
    texts = {"main.js": lib, "main.test.js": test}

    [suspect] = find_brace_suspects(set(), run, [case.id], "main.js", texts, "")

    assert suspect.code == lib.rstrip("\n")


def test_the_function_the_task_names_wins_and_a_test_naming_two_convicts_none() -> None:
    [named] = find_brace_suspects({"mul"}, RUN, [CASE.id], "src/lib.rs", TEXTS, "")
    both = TESTS.replace("add(2, 3) == 5", "add(2, 3) == mul(5, 1)")
    texts = {**TEXTS, "src/tests.rs": both}

    assert named.name == "mul"
    assert find_brace_suspects(set(), RUN, [CASE.id], "src/lib.rs", texts, "") == []


def test_without_a_test_case_the_named_function_comes_with_the_failure_report() -> None:
    [suspect] = find_brace_suspects({"add"}, None, [], "src/lib.rs", TEXTS, "timed out\n")

    assert (suspect.name, suspect.test_id, suspect.says) == ("add", "", "timed out")


def test_a_function_not_written_yet_is_a_stub() -> None:
    assert is_brace_stub('func Add(a, b int) int {\n\tpanic("Please implement")\n}')
    assert is_brace_stub("pub fn add(a: i32) -> i32 {\n    todo!()\n}")
    assert is_brace_stub("function add(a, b) {\n  throw new Error('Remove this line');\n}")
    assert is_brace_stub("function add(a, b) {\n  // TODO\n}")
    assert not is_brace_stub("func Add(a, b int) int {\n\treturn a - b\n}")


def test_what_the_run_says_leaves_out_a_message_its_detail_repeats() -> None:
    """Go's testify message heads the detail line that says it again with its place; shown
    twice, it pushed the last failing check past the lines kept (HumanEvalFix Go-57)."""
    detail = "".join(f"    main_test.go:{n}: Not equal: expected: true actual  : false\n"
                     for n in range(10, 18))  # fmt: skip
    case = TestCase(CASE.id, "failed", "src/tests.rs", 4, "Not equal: expected: true actual : false",
                    detail)  # fmt: skip
    run = TestRun("cargo test", 101, "", {case.id: case}, per_test=True)
    [suspect] = find_brace_suspects(set(), run, [case.id], "src/lib.rs", TEXTS, "")
    assert suspect.says.splitlines() == [x.rstrip() for x in detail.splitlines()]


NODE_TEST = (
    "const assert = require('node:assert');\n"
    "console.assert = (cond, ...msg) =>\n"
    "  assert.ok(cond, msg.length ? msg.join(' ') : 'console.assert failed');\n"
    "const { stringXor } = require('./main.js');\n\n"
    "const testStringXor = () => {\n"
    "  console.assert(stringXor('111000', '101010') === '010010')\n"
    "}\n\ntestStringXor()\n"
)
NODE_SAYS = """timeout 20 node main.test.js exited 1:

AssertionError [ERR_ASSERTION]: console.assert failed
    at console.assert (main.test.js:3:10)
    at testStringXor (main.test.js:7:11)
    at Object.<anonymous> (main.test.js:10:1) {
  generatedMessage: false,
  code: 'ERR_ASSERTION',
  actual: false,
  expected: true,
  operator: '=='
}
"""


def test_a_long_failure_keeps_the_test_lines_it_points_at() -> None:
    main = "const stringXor = (a, b) => {\n  return a;\n}\nmodule.exports = { stringXor };\n"
    report = NODE_SAYS + where_in_tests(NODE_SAYS, {"main.test.js": NODE_TEST})
    texts = {"main.js": main, "main.test.js": NODE_TEST}

    [suspect] = find_brace_suspects({"stringXor"}, None, [], "main.js", texts, report)

    says = suspect.says.splitlines()
    assert says[0] == "timeout 20 node main.test.js exited 1:"
    assert "- main.test.js:7: `console.assert(stringXor('111000', '101010') === '010010')`" in says
    assert len(says) <= 8
