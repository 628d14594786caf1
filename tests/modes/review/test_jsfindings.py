"""What a review finds first in JavaScript and TypeScript files: node's syntax errors,
ESLint's errors where the project configures and installs it, tsc's type errors — from the
project's own tools, in the sandbox; a tool that is missing is named, never "no findings"."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.conftest import install_node_modules, make_repo
from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.modes.review.findings import scan
from patchwright.sandbox import Sandbox
from patchwright.verify import take_baseline

FILES = {
    "package.json": '{"name": "calc", "type": "module"}\n',
    "eslint.config.js": "export default [{ rules: { 'prefer-const': 'error' } }];\n",
    # "types": [] as many projects have it: tsc then loads no @types package (8.7 s to 1.5 s)
    "tsconfig.json": (
        '{"compilerOptions": {"strict": true, "noEmit": true, "types": []}, "include": ["src"]}\n'
    ),
    "src/broken.js": "export function add(a, b) {\n  return a +;\n}\n",
    "src/calc.js": "export function twice(n) {\n  let doubled = n * 2;\n  return doubled;\n}\n",
    "src/typed.ts": "export const count: number = 'three';\n",
    "src/fine.js": "export const one = 1;\n",
}


def _scan(repo: Path) -> tuple[dict[str, list[str]], list[str]]:
    sandbox = Sandbox(repo)
    texts = {p: (repo / p).read_text() for p in FILES if p.startswith("src/")}
    found = scan(repo, sandbox, take_baseline(repo, sandbox), texts, sorted(texts), {})
    rendered = {path: [f.render() for f in items] for path, items in found.by_file.items()}
    return rendered, found.notes


def test_syntax_lint_and_type_errors_are_found_with_the_project_s_tools(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "calc", FILES)
    install_node_modules(repo)

    found, notes = _scan(repo)

    assert sorted(found) == ["src/broken.js", "src/calc.js", "src/typed.ts"]  # not fine.js
    node, eslint = found["src/broken.js"]  # both tools read it, both say where
    assert node.startswith("src/broken.js:2: [lint node-check] SyntaxError: Unexpected token")
    assert eslint.startswith("src/broken.js:2: [lint syntax] Parsing error: Unexpected token")
    assert found["src/calc.js"] == [
        "src/calc.js:2: [lint prefer-const] 'doubled' is never reassigned. Use 'const' instead."
    ]
    assert found["src/typed.ts"] == [
        "src/typed.ts:1: [types TS2322] Type 'string' is not assignable to type 'number'."
    ]
    assert notes == []


def test_without_the_project_s_eslint_and_tsc_the_review_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "calc", FILES)  # no node_modules

    found, notes = _scan(repo)

    assert [f.split(": [")[1].split("]")[0] for f in found["src/broken.js"]] == ["lint node-check"]
    assert "src/calc.js" not in found and "src/typed.ts" not in found
    assert notes == [
        "ESLint is configured but not installed in .: no ESLint findings there",
        "TypeScript is not installed for tsconfig.json: no type findings there",
    ]


@pytest.fixture(autouse=True)
def _node_present() -> None:
    from shutil import which

    if which("node") is None:
        pytest.skip("node is not on PATH")


def test_a_review_fixes_a_javascript_syntax_error_and_node_verifies_it(
    tmp_path: Path, script: Callable[[list[str]], Path]
) -> None:
    files = {k: v for k, v in FILES.items() if k in ("package.json", "src/broken.js")}
    files["README.md"] = "A calculator.\n"
    repo = make_repo(tmp_path / "calc", files)
    fix = ("The addition lost its right operand.\n\nsrc/broken.js\n```javascript\n<<<<<<< SEARCH\n"
           "  return a +;\n=======\n  return a + b;\n>>>>>>> REPLACE\n```\n")  # fmt: skip
    summary = "add(a, b) returns the sum of two numbers."  # the review's note on the file
    replies = script([summary, fix, "fix(calc): add returns a + b", "- calc: add fixed"])
    result = CliRunner().invoke(app, ["review", "--repo", str(repo), "--model", f"scripted:{replies}",
                                      "--json", "--smoke-seconds", "0", "--iterations", "1",
                                      "--yes"])  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])

    assert [a["target"] for a in out["accepted"]] == ["src/broken.js"], out
    assert "return a + b;" in (repo / "src/broken.js").read_text()
    asked = [p for p in trajectory_prompts(repo) if "You are reviewing src/broken.js" in p]
    assert "[lint node-check] SyntaxError: Unexpected token ';'" in asked[0]  # what was wrong


def trajectory_prompts(repo: Path) -> list[str]:
    """The user prompts of every proposal, from the records nested in the review's."""
    run_dir = sorted((repo / ".patchwright" / "runs").iterdir())[-1]
    prompts = []
    for task in sorted((run_dir / "tasks").iterdir()):
        messages = json.loads((task / "trajectory.json").read_text())["messages"]
        prompts += [m["content"] for m in messages if m["role"] == "user"]
    return prompts
