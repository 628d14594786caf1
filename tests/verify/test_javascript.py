"""JavaScript and TypeScript as first-class as Python: per-test outcomes from node's runner,
jest, vitest and mocha; ``node --check`` as node loads the file, ESLint and ``tsc`` against the
baseline — on real packages in temporary folders, run in the sandbox.

Before: every JavaScript runner was judged by its exit code alone (``npm test --silent fails
before any change and gives no per-test outcomes``), so no failing test could be named, a
fix was not reported and a new failure in a suite that already failed passed the gate;
``node --check`` read ESM as CommonJS; ESLint and tsc never ran.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import (
    Baseline,
    LintGate,
    TestsGate,
    TypesGate,
    detect_test_command,
    summarize_failures,
)
from patchwright.verify.runners.js import target

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

CALC = (
    "function add(a, b) {\n  return a - b;\n}\n\n"
    "function mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };\n"
)
NODE_TESTS = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add, mul } = require('../src/calc');\n\n"
    "test('add returns the sum', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\n"
    "test.describe('mul', () => {\n"
    "  test.it('multiplies', () => {\n    assert.strictEqual(mul(2, 3), 6);\n  });\n});\n"
)
JEST_TESTS = (
    "const { add, mul } = require('../src/calc');\n\n"
    "describe('calc', () => {\n"
    "  test('add returns the sum', () => {\n    expect(add(2, 3)).toBe(5);\n  });\n"
    "  test('mul multiplies', () => {\n    expect(mul(2, 3)).toBe(6);\n  });\n});\n"
)


def _package(scripts: dict[str, str], **extra: Any) -> str:
    return json.dumps({"name": "calc", "version": "1.0.0", "scripts": scripts, **extra})


def _fix_and_break(base: Baseline, write: Callable[..., None], check: Callable[..., Any],
                   broken_id: str, broken_message: str) -> None:  # fmt: skip
    """A fix passes the tests gate and is reported; breaking mul() names the broken test."""
    write({"src/calc.js": CALC.replace("a - b", "a + b")})
    fixed = check(base, ["src/calc.js"], gates=[TestsGate()])["tests"]
    assert fixed.status == "passed", fixed
    assert [p.message for p in fixed.fixed_problems] == sorted(base.failing_tests)

    write({"src/calc.js": CALC.replace("a * b", "a * b + 1")})
    broke = check(base, ["src/calc.js"], gates=[TestsGate()])["tests"]
    assert broke.status == "failed"
    assert [p.message for p in broke.new_problems] == [broken_id]
    summary = summarize_failures([broke])
    assert broken_id in summary and broken_message in summary
    assert "add returns the sum" not in summary  # failing before: not new


def test_node_test_runner_names_the_failing_test_with_its_assertion(
    repo: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:
    write({"package.json": _package({"test": "node --test"}), "src/calc.js": CALC,
           "test/calc.test.js": NODE_TESTS})  # fmt: skip
    assert detect_test_command(repo) == "npm test --silent"
    base = baseline()
    run = base.tests
    assert run is not None and run.per_test and run.runner == "node", run and run.output
    add = "test/calc.test.js::add returns the sum"
    assert base.failing_tests == {add}
    assert run.cases["test/calc.test.js::mul::multiplies"].outcome == "passed"
    case = run.cases[add]
    assert case.message == "Expected values to be strictly equal: -1 !== 5"
    assert case.path == "test/calc.test.js" and case.line == 5
    assert "at test/calc.test.js:6:" in case.detail
    assert "✔ test" not in run.output and "add returns the sum" in run.output  # spec, for people
    _fix_and_break(base, write, check, "test/calc.test.js::mul::multiplies", "7 !== 6")


def test_a_node_test_file_that_does_not_load_is_one_failing_case(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"package.json": _package({"test": "node --test"}), "src/calc.js": CALC,
           "test/calc.test.js": NODE_TESTS})  # fmt: skip
    base = baseline()
    write({"test/calc.test.js": "require('../src/gone');\n" + NODE_TESTS})
    result = check(base, ["test/calc.test.js"], gates=[TestsGate()])["tests"]
    assert result.status == "failed"
    (problem,) = result.new_problems
    assert problem.message == "test/calc.test.js" and problem.code == "error"
    assert "Cannot find module '../src/gone'" in problem.detail


def test_a_plain_node_scripts_failure_names_files_as_the_repository_does(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline]
) -> None:
    """``node main.test.js`` (HumanEvalFix's layout) prints where it threw by absolute path;
    the output keeps the repository's names, the same from one run's folder to the next."""
    write({"main.js": CALC, "main.test.js": (
        "const assert = require('assert');\nconst { add } = require('./main');\n"
        "assert.strictEqual(add(2, 3), 5);\n")})  # fmt: skip
    run = baseline(test_cmd="node main.test.js").tests
    assert run is not None and run.exit_code == 1
    assert "main.test.js:3" in run.output and str(repo) not in run.output
    assert str(repo.resolve()) not in run.output


def test_jest_from_the_local_node_modules(
    repo: Path,
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
    js_modules: Callable[[], Path],
) -> None:
    js_modules()
    write({"package.json": _package({"test": "jest"}), "src/calc.js": CALC,
           "test/calc.test.js": JEST_TESTS})  # fmt: skip
    base = baseline()
    run = base.tests
    assert run is not None and run.per_test and run.runner == "jest", run and run.output
    add = "test/calc.test.js::calc::add returns the sum"
    assert base.failing_tests == {add}
    case = run.cases[add]
    assert case.message == "expect(received).toBe(expected) // Object.is equality"
    assert "Expected: 5" in case.detail and "Received: -1" in case.detail
    assert case.line == 4 and "at test/calc.test.js:5:" in case.detail
    _fix_and_break(base, write, check, "test/calc.test.js::calc::mul multiplies", "Received: 7")


def test_jest_through_pnpm_style_scripts_and_vitest_and_mocha_report_per_test(
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    js_modules: Callable[[], Path],
) -> None:
    js_modules()
    vitest = "import { describe, test, expect } from 'vitest';\n" + JEST_TESTS.replace(
        "const { add, mul } = require('../src/calc');",
        "import calc from '../src/calc.js';\nconst { add, mul } = calc;",
    )
    mocha = JEST_TESTS.replace("expect(add(2, 3)).toBe(5)", "assert.strictEqual(add(2, 3), 5)")
    mocha = "const assert = require('node:assert');\n" + mocha.replace(
        "expect(mul(2, 3)).toBe(6)", "assert.strictEqual(mul(2, 3), 6)"
    ).replace("test(", "it(")
    write({
        "package.json": _package({"test": "npm run unit", "unit": "CI=1 jest test/",
                                  "vt": "vitest vtest", "mo": "mocha mtest"}),
        "src/calc.js": CALC, "test/calc.test.js": JEST_TESTS, "vtest/calc.test.mjs": vitest,
        "mtest/calc.spec.js": mocha,
    })  # fmt: skip
    for cmd, runner, failing in (
        ("npm run vt", "vitest", "vtest/calc.test.mjs::calc::add returns the sum"),
        ("npm run mo", "mocha", "mtest/calc.spec.js::calc::add returns the sum"),
    ):
        run = baseline(test_cmd=cmd).tests
        assert run is not None and run.runner == runner, run and run.output[-2000:]
        assert run.failing == {failing}
        assert "5" in run.cases[failing].message + run.cases[failing].detail
    # a bare `vitest` watches for changes unless it sees CI: it ran once and ended
    # `npm test` runs `npm run unit`: options added to `npm test` would reach npm, not jest
    nested = baseline().tests
    assert nested is not None and not nested.per_test and nested.exit_code == 1
    assert "cannot reach it through the `test` script" in nested.note


@pytest.mark.parametrize(
    ("scripts", "cmd", "expected"),
    [
        ({"test": "jest --coverage"}, "npm test", ("jest", " --")),
        ({"test": "jest"}, "npm test -- -i", ("jest", "")),
        ({"test": "tsc && vitest run"}, "pnpm test", ("vitest", "")),
        ({"test": "NODE_ENV=test nyc --reporter=text mocha"}, "yarn test", ("mocha", "")),
        ({"test": "node --experimental-vm-modules node_modules/.bin/jest"}, "npm t", ("jest", " --")),
        ({"test": "jest && node check.js"}, "npm test", ("jest", None)),
        ({"test": "node --test test/ && eslint ."}, "npm test", ("node", None)),
        ({"test": "node build.js"}, "npm test", None),
        ({}, "npx vitest run", ("vitest", "")),
        ({}, "node --test", ("node", "")),
        ({}, "make test", None),
        ({}, "timeout 20 npx jest", ("jest", "")),
        ({}, "jest > out.txt", ("jest", None)),
        # Aider's polyglot JavaScript tasks: the runner ends the line, so options reach it
        ({}, 'D=/opt/x; [ -x "$D/jest" ] || { echo no >&2; exit 3; }; '
             'ln -s "$D" node_modules && node_modules/.bin/jest --ci ./*', ("jest", "")),
    ],
)  # fmt: skip
def test_which_runner_a_command_runs_and_how_its_options_reach_it(
    tmp_path: Path, scripts: dict[str, str], cmd: str, expected: tuple[str, str | None] | None
) -> None:
    (tmp_path / "package.json").write_text(_package(scripts))
    found = target(tmp_path, cmd)
    assert (None if found is None else (found.runner, found.forward)) == expected


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"package.json": _package({"test": "jest"})}, "npm test --silent"),
        ({"package.json": _package({"test": "jest"}), "yarn.lock": ""}, "yarn test"),
        ({"package.json": _package({}, devDependencies={"vitest": "^2"})}, "npx --no vitest run"),
        ({"package.json": _package({}), "test/a.test.js": "require('node:test')\n"}, "node --test"),
        ({"package.json": _package({})}, None),
    ],
)  # fmt: skip
def test_javascript_runner_detection(
    tmp_path: Path, files: dict[str, str], expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "yarn").write_text("#!/bin/sh\n")
    (bin_dir / "yarn").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert detect_test_command(tmp_path) == expected


def test_node_check_reads_each_file_as_node_would_load_it(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    esm = "import { add } from './calc.js';\nexport const twice = (a) => add(a, a);\n"
    write({"package.json": _package({}), "app/package.json": '{"type": "module"}',
           "lib.js": "module.exports = 1;\n"})  # fmt: skip
    base = baseline()
    # new files: ESM in a module package, in an .mjs file, and (bundled) in a plain .js
    write({"app/twice.js": esm, "twice.mjs": esm, "src/twice.js": esm})
    touched = ["app/twice.js", "twice.mjs", "src/twice.js"]
    result = check(base, touched, gates=[LintGate()])["lint"]
    assert result.status == "passed", result
    # CommonJS-only code in an ES module is an error there, and `return` at top level too
    write({"app/bad.js": "return 1;\n", "twice.mjs": esm + "export const = 3;\n"})
    result = check(base, ["app/bad.js", "twice.mjs"], gates=[LintGate()])["lint"]
    assert result.status == "failed"
    assert sorted((p.path, p.code) for p in result.new_problems) == [
        ("app/bad.js", "node-check"), ("twice.mjs", "node-check")]  # fmt: skip
    assert result.new_problems[0].line in (1, 3)


def test_tsc_blocks_a_new_type_error_not_an_old_one(
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
    js_modules: Callable[[], Path],
) -> None:
    js_modules()
    # "types": [] as many projects have it: tsc then loads no @types package (8.7 s to 1.5 s)
    config = {"compilerOptions": {"strict": True, "noEmit": True, "target": "ES2020",
                                  "types": []}, "include": ["src"]}  # fmt: skip
    write({
        "package.json": _package({}), "tsconfig.json": json.dumps(config),
        "src/calc.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        "src/old.ts": "export const wrong: number = 'already wrong';\n",
    })  # fmt: skip
    base = baseline()
    write(
        {"src/calc.ts": "export function add(a: number, b: number): number {\n  return b + a;\n}\n"}
    )
    same = check(base, ["src/calc.ts"], gates=[TypesGate()])["types"]
    assert same.status == "passed", same
    write(
        {
            "src/calc.ts": "export function add(a: number, b: number): number {\n  return `${a}`;\n}\n"
        }
    )
    worse = check(base, ["src/calc.ts"], gates=[TypesGate()])["types"]
    assert worse.status == "failed", worse
    (problem,) = worse.new_problems
    assert (problem.path, problem.line, problem.code) == ("src/calc.ts", 2, "TS2322")
    assert "not assignable to type 'number'" in problem.message


def test_eslint_runs_with_the_projects_config_and_blocks_only_new_errors(
    write: Callable[..., None],
    baseline: Callable[..., Baseline],
    check: Callable[..., Any],
    js_modules: Callable[[], Path],
) -> None:
    js_modules()
    write({
        "package.json": _package({}),
        "eslint.config.js": "module.exports = [{ rules: { 'no-unused-vars': 'error', "
                            "'no-console': 'warn' } }];\n",
        "src/calc.js": CALC.replace("function mul", "const unused = 1;\n\nfunction mul"),
    })  # fmt: skip
    base = baseline()
    write({"src/calc.js": CALC.replace("a - b", "a + b").replace(
        "function mul", "const unused = 1;\nconsole.log(1);\n\nfunction mul")})  # fmt: skip
    same = check(base, ["src/calc.js"], gates=[LintGate()])["lint"]
    assert same.status == "passed", same  # the old unused variable, and a warning only
    write({"src/calc.js": CALC.replace("return a - b;", "const extra = 2;\n  return a + b;")})
    worse = check(base, ["src/calc.js"], gates=[LintGate()])["lint"]
    assert worse.status == "failed", worse
    (problem,) = worse.new_problems
    assert (problem.code, problem.line) == ("no-unused-vars", 2)
    assert "'extra' is assigned a value but never used" in problem.message
