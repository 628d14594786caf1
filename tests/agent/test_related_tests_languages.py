"""A JavaScript, TypeScript, Go or Rust repository's tests are linked to its code as a Python
repository's are: a failing test that exercises the file the task points at is one of the
task's targets, the tests of a file the task names are shown with it, and the code a failing
test exercises is shown with the test — on real repositories, read as a run reads them.

Before: only Python imports linked a test to its code, and only Python definitions tied a name
in the task to a file, so "``Sum`` returns wrong totals" in a Go repository required none of the
failing tests and showed none of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from patchwright.agent.context import ContextRequest, build_context
from patchwright.agent.criterion import decide
from patchwright.agent.relations.test_links import CodeLinks
from patchwright.verify import Baseline
from patchwright.verify.testrun import TestCase, TestRun
from patchwright.workspace.files import read_context_files

JS = {
    "package.json": '{"name": "abacus", "scripts": {"test": "node --test"}}\n',
    "src/calc.js": "function sum(xs) {\n  return xs.reduce((a, b) => a - b, 0);\n}\n\n"
    "module.exports = { sum };\n",
    "src/clock.js": "export const tick = (t) => t;\n",
    "test/totals.test.js": "const test = require('node:test');\nconst assert = "
    "require('node:assert');\nconst { sum } = require('../src/calc');\n\n"
    "test('adds up a list', () => assert.strictEqual(sum([1, 2]), 3));\n",
    "test/clock.test.js": "import test from 'node:test';\nimport { tick } from '../src/clock.js';\n"
    "\ntest('moves on', () => tick(1));\n",
}
TS = {
    "package.json": '{"name": "abacus", "scripts": {"test": "vitest run"}}\n',
    "src/calc.ts": "export function sum(xs: number[]): number {\n  return 0;\n}\n",
    "src/clock.ts": "export class Clock {\n  now(): number {\n    return 0;\n  }\n}\n",
    "src/__tests__/totals.spec.ts": "import { sum } from '../calc.js';\n\n"
    "it('adds up a list', () => expect(sum([1, 2])).toBe(3));\n",
    "src/__tests__/clock.spec.ts": "import { Clock } from '../clock';\n\n"
    "it('moves on', () => expect(new Clock().now()).toBe(1));\n",
}
GO = {
    "go.mod": "module example.com/abacus\n\ngo 1.19\n",
    "calc/calc.go": "package calc\n\nfunc Sum(xs []int) int {\n\treturn 0\n}\n",
    "calc/totals_test.go": 'package calc\n\nimport "testing"\n\nfunc TestTotals(t *testing.T) {\n'
    "\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fail()\n\t}\n}\n",
    "clock/clock.go": "package clock\n\nfunc Now() int {\n\treturn 0\n}\n",
    "clock/clock_test.go": 'package clock\n\nimport "testing"\n\nfunc TestMovesOn(t *testing.T) {\n'
    "\tif Now() != 1 {\n\t\tt.Fail()\n\t}\n}\n",
}
RUST = {
    "Cargo.toml": '[package]\nname = "abacus-core"\nversion = "0.1.0"\nedition = "2021"\n',
    "src/lib.rs": "pub mod calc;\npub mod clock;\n",
    "src/calc.rs": "pub fn sum(xs: &[i32]) -> i32 {\n    0\n}\n",
    "src/clock.rs": "pub fn now() -> i32 {\n    0\n}\n\n#[cfg(test)]\nmod tests {\n"
    "    #[test]\n    fn moves_on() {\n        assert_eq!(super::now(), 1);\n    }\n}\n",
    "tests/totals.rs": "use abacus_core::calc::{self, sum};\n\n#[test]\n"
    "fn adds_up_a_list() {\n    assert_eq!(sum(&[1, 2]), 3);\n}\n",
}

# language: (files, the source the task is about, its test file, its failing test's id, a
# failing test of other code, the function the task names)
CASES: dict[str, tuple[dict[str, str], str, str, str, str, str]] = {
    "javascript": (
        JS, "src/calc.js", "test/totals.test.js", "test/totals.test.js::adds up a list",
        "test/clock.test.js::moves on", "sum",
    ),
    "typescript": (
        TS, "src/calc.ts", "src/__tests__/totals.spec.ts",
        "src/__tests__/totals.spec.ts::adds up a list", "src/__tests__/clock.spec.ts::moves on",
        "sum",
    ),
    "go": (
        GO, "calc/calc.go", "calc/totals_test.go", "calc/totals_test.go::TestTotals",
        "clock/clock_test.go::TestMovesOn", "Sum",
    ),
    "rust": (
        RUST, "src/calc.rs", "tests/totals.rs", "tests/totals.rs::adds_up_a_list",
        "src/clock.rs::tests::moves_on", "sum",
    ),
}  # fmt: skip


def _repo(lang: str, tmp_path: Path, shop: Any) -> dict[str, str]:
    """The case's repository, committed, and its files as a run reads them."""
    root = shop.make_repo(tmp_path / lang, CASES[lang][0])
    return {p: f.text for p, f in read_context_files(root).files.items()}


def _baseline(*failing: str) -> Baseline:
    """A baseline whose runner reported ``failing``, each in its file, as the runners name
    them (a Rust unit test lives in the code's own file)."""
    cases = {
        t: TestCase(t, "failed", t.split("::")[0], 1, inline=t.startswith("src/")) for t in failing
    }
    run = TestRun("the tests", 1, "", cases, per_test=True)
    return Baseline(Path("."), {}, frozenset(), tests=run, test_cmd="the tests")


@pytest.mark.parametrize("lang", list(CASES))
def test_a_failing_test_of_the_file_the_task_names_is_a_target(
    lang: str, tmp_path: Path, shop: Any
) -> None:
    texts = _repo(lang, tmp_path, shop)
    _, source, _, test_id, other, _ = CASES[lang]
    criterion = decide(_baseline(test_id, other), f"{source} gives wrong results", texts,
                       user_test_cmd=None)  # fmt: skip
    assert criterion.targets == {test_id}
    assert criterion.unrelated == (other,)


@pytest.mark.parametrize("lang", list(CASES))
def test_a_function_the_task_names_points_at_its_file_and_so_at_its_tests(
    lang: str, tmp_path: Path, shop: Any
) -> None:
    texts = _repo(lang, tmp_path, shop)
    _, _, _, test_id, other, name = CASES[lang]
    task = f"{name} returns wrong results"  # not marked as code: the repository defines it
    criterion = decide(_baseline(test_id, other), task, texts, user_test_cmd=None)
    assert criterion.targets == {test_id}


@pytest.mark.parametrize("lang", list(CASES))
def test_the_tests_of_the_file_the_task_names_are_shown_with_it(
    lang: str, tmp_path: Path, shop: Any
) -> None:
    texts = _repo(lang, tmp_path, shop)
    _, source, test_file, _, other, _ = CASES[lang]
    ctx = build_context(tmp_path, ContextRequest(f"{source} gives wrong results", texts, 4000))
    reasons = {f.path: f.reason for f in ctx.files}
    assert reasons[source] == "named in the task"
    assert reasons[test_file] == "tests a file named in the task"
    assert reasons.get(other.split("::")[0]) != "tests a file named in the task"


@pytest.mark.parametrize("lang", list(CASES))
def test_the_code_a_failing_test_exercises_is_shown_with_the_test(
    lang: str, tmp_path: Path, shop: Any
) -> None:
    texts = _repo(lang, tmp_path, shop)
    _, source, test_file, _, _, _ = CASES[lang]
    req = ContextRequest("the totals are wrong", texts, 4000, tests=[test_file])
    ctx = build_context(tmp_path, req)
    assert ctx.paths[:2] == [test_file, source]
    assert [f.reason for f in ctx.files[:2]] == [
        "a failing test of the task",
        "exercised by a failing test",
    ]


def test_a_rust_file_with_its_own_tests_is_first_among_them(tmp_path: Path, shop: Any) -> None:
    links = CodeLinks(_repo("rust", tmp_path, shop))
    assert links.tests_of("src/clock.rs") == ["src/clock.rs"]
    assert links.code_under_test("src/clock.rs") == ["src/clock.rs"]
    assert links.code_under_test("tests/totals.rs") == ["src/calc.rs"]


@pytest.mark.parametrize(
    ("test", "text", "found"),
    [
        ("test/a.test.js", "import x from '../lib/a.mjs';", ["lib/a.mjs"]),
        ("test/a.test.ts", "import { a } from '../lib/a.js';", ["lib/a.ts"]),  # TS's ESM
        ("test/a.test.js", "const a = require('../lib');", ["lib/index.js"]),
        ("test/a.test.js", "jest.mock('../lib/a'); import 'lodash';", ["lib/a.mjs"]),
        ("a.spec.tsx", "import A from '@/lib/b';", ["src/lib/b.tsx"]),  # a path alias
    ],
)
def test_javascript_imports_resolve_as_node_bundlers_and_typescript_do(
    test: str, text: str, found: list[str]
) -> None:
    texts = {test: text, "lib/a.mjs": "", "lib/a.ts": "", "lib/index.js": "", "src/lib/b.tsx": ""}
    assert CodeLinks(texts).code_under_test(test) == found


def test_a_go_test_exercises_its_package_and_the_modules_packages_it_imports() -> None:
    texts = {
        "go.mod": "module example.com/abacus\n",
        "calc/calc.go": "package calc\n",
        "calc/calc_test.go": "package calc\n",
        "cmd/app/app.go": "package main\n",
        "cmd/app/app_test.go": 'package main\n\nimport (\n\t"testing"\n\n'
        '\t"example.com/abacus/calc"\n\tfmtx "example.com/other/fmt"\n)\n',
    }
    links = CodeLinks(texts)
    assert links.code_under_test("cmd/app/app_test.go") == ["cmd/app/app.go", "calc/calc.go"]
    assert links.tests_of("calc/calc.go") == ["calc/calc_test.go", "cmd/app/app_test.go"]
