"""``patchwright run`` on JavaScript (node's runner and jest), Go and Rust repositories, end to
end with scripted replies: a comment-only reply ends ``failed`` naming the failing test, with
the repository byte-identical; the correct reply ends ``solved`` — also when the task's test
is a Rust unit test in the code's own file, which must then stay writable.

Before: node's runner gave no per-test outcomes, so the run said ``npm test --silent fails
before any change and gives no per-test outcomes``, ended ``unverified``, and ``--yes``
committed a comment while ``npm test`` still failed; cargo could not start in the sandbox.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import install_node_modules

Script = Callable[[list[str]], Path]
TASK = "add() returns the wrong result; fix it."

CALC_JS = (
    "function add(a, b) {\n  return a - b;\n}\n\n"
    "function mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };\n"
)
NODE_TESTS = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add, mul } = require('../src/calc');\n\n"
    "test('add returns the sum', () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n\n"
    "test('mul multiplies', () => {\n  assert.strictEqual(mul(2, 3), 6);\n});\n"
)
JEST_TESTS = (
    "const { add, mul } = require('../src/calc');\n\n"
    "test('add returns the sum', () => {\n  expect(add(2, 3)).toBe(5);\n});\n\n"
    "test('mul multiplies', () => {\n  expect(mul(2, 3)).toBe(6);\n});\n"
)
GO_CALC = "package calc\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
GO_TESTS = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n"
    '\tif got := Add(2, 3); got != 5 {\n\t\tt.Errorf("Add(2, 3) = %d, want 5", got)\n\t}\n}\n'
)
RUST_LIB = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
RUST_TESTS = "#[test]\nfn add_returns_the_sum() {\n    assert_eq!(calc::add(2, 3), 5);\n}\n"


def sr(path: str, fence: str, search: str, replace: str) -> str:
    return (
        f"{path}\n```{fence}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"
    )


def _package(test: str) -> str:
    return json.dumps({"name": "calc", "version": "1.0.0", "scripts": {"test": test}})


def _node_modules(repo: Path) -> None:
    install_node_modules(repo)
    (repo / ".gitignore").write_text("node_modules\n")


CASES = {
    "node": (
        {"package.json": _package("node --test"), "src/calc.js": CALC_JS,
         "test/calc.test.js": NODE_TESTS},
        "src/calc.js", "javascript", ("  return a - b;", "  return a + b;"),
        "test/calc.test.js::add returns the sum", "-1 !== 5",
    ),
    "jest": (
        {"package.json": _package("jest"), "src/calc.js": CALC_JS,
         "test/calc.test.js": JEST_TESTS},
        "src/calc.js", "javascript", ("  return a - b;", "  return a + b;"),
        "test/calc.test.js::add returns the sum", "Received: -1",
    ),
    "go": (
        {"go.mod": "module example.com/calc\n\ngo 1.19\n", "calc.go": GO_CALC,
         "calc_test.go": GO_TESTS},
        "calc.go", "go", ("\treturn a - b", "\treturn a + b"),
        "calc_test.go::TestAdd", "Add(2, 3) = -1, want 5",
    ),
    "rust": (
        {"Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
         "src/lib.rs": RUST_LIB, "tests/calc.rs": RUST_TESTS, ".gitignore": "target\n"},
        "src/lib.rs", "rust", ("    a - b", "    a + b"),
        "tests/calc.rs::add_returns_the_sum", "left: -1",
    ),
}  # fmt: skip
TOOLS = {"node": "node", "jest": "node", "go": "go", "rust": "cargo"}


def _repo(kind: str, tmp_path: Path, shop: Any) -> tuple[Path, tuple[Any, ...]]:
    if shutil.which(TOOLS[kind]) is None:
        pytest.skip(f"{TOOLS[kind]} is not installed")
    files, *rest = CASES[kind]
    root = tmp_path / kind
    root.mkdir()
    if kind == "jest":
        _node_modules(root)
    if kind == "rust":  # committed, as for any binary crate: the test run does not write it
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        subprocess.run(["cargo", "generate-lockfile", "--offline"], cwd=root, check=True,
                       capture_output=True)  # fmt: skip
        files = {**files, "Cargo.lock": (root / "Cargo.lock").read_text()}
    return shop.make_repo(root, files), tuple(rest)


def _fingerprint(shop: Any, repo: Path) -> dict[str, str]:
    """The repository's files less its build output (``target/``, ignored by git)."""
    return {k: v for k, v in shop.fingerprint(repo).items() if not k.startswith("target/")}


@pytest.mark.parametrize("kind", list(CASES))
def test_a_comment_only_reply_fails_naming_the_failing_test(
    kind: str, tmp_path: Path, script: Script, shop: Any
) -> None:
    repo, (path, fence, (bad, _), test_id, said) = _repo(kind, tmp_path, shop)
    before, head = _fingerprint(shop, repo), shop.git(repo, "rev-parse", "HEAD")
    indent = bad[: len(bad) - len(bad.lstrip())]
    comments = [f"// add them {n}" for n in range(16)]
    replies = script([sr(path, fence, bad, f"{indent}{c}\n{bad}") for c in comments])
    code, out = shop.run(repo, TASK, replies)
    assert (code, out["outcome"]) == (1, "failed"), json.dumps(out)[:3000]
    if kind in ("go", "rust"):  # a comment no tool reads changes nothing: never tested
        assert out["reason"] == "no verified change within the iterations"
    else:  # the same code again and again is a repeat of the failed change: three stop the run
        assert "had already failed 3 times" in out["reason"]
    assert out["criterion"]["targets"] == [test_id]
    assert out["criterion"]["remaining"] == [test_id]
    assert _fingerprint(shop, repo) == before
    assert shop.git(repo, "rev-parse", "HEAD") == head
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    prompts = [m["content"] for m in messages if m["role"] == "user"]
    assert said in prompts[0] and said in prompts[1]


@pytest.mark.parametrize("kind", list(CASES))
def test_the_correct_reply_is_solved(kind: str, tmp_path: Path, script: Script, shop: Any) -> None:
    repo, (path, fence, (bad, good), test_id, _) = _repo(kind, tmp_path, shop)
    code, out = shop.run(repo, TASK, script([sr(path, fence, bad, good), "fix(calc): add adds"]))
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert out["criterion"]["targets"] == [test_id]
    assert good in (repo / path).read_text()


def test_a_rust_unit_test_in_the_codes_own_file_leaves_that_file_writable(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """Before: ``src/lib.rs holds the tests the task must make pass; it is read-only``, so no
    fix of a function tested by its own ``#[cfg(test)] mod tests`` could be written."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    lib = RUST_LIB + (
        "\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn add_works() {\n"
        "        assert_eq!(super::add(2, 3), 5);\n    }\n}\n"
    )
    root = tmp_path / "unit"
    root.mkdir()
    files = {
        "Cargo.toml": CASES["rust"][0]["Cargo.toml"],
        "src/lib.rs": lib,
        ".gitignore": "target\n",
    }
    repo = shop.make_repo(root, files)
    reply = sr("src/lib.rs", "rust", "    a - b", "    a + b")
    code, out = shop.run(repo, TASK, script([reply, "fix(calc): add adds"]))
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert out["criterion"]["targets"] == ["src/lib.rs::tests::add_works"]
    assert "    a + b" in (repo / "src/lib.rs").read_text()


def test_unlinking_the_protected_rust_tests_does_not_count_as_passing_them(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix's Rust layout (private functions, ``mod tests;`` reading src/tests.rs, no
    .gitignore). A reply that drops ``mod tests;`` makes ``cargo test`` exit 0 with the
    task's test gone: that is not solved. (One that swaps it for a module of its own keeps
    the line: ``test_rust_test_links.py``.) Nor does the baseline run's ``target/`` reach the
    model (its build files once did, and were edited)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed")
    lib = "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests;\n"
    tests = "use super::*;\n\n#[test]\nfn add_works() {\n    assert_eq!(add(2, 3), 5);\n}\n"
    root = tmp_path / "hef"
    root.mkdir()
    cargo = CASES["rust"][0]["Cargo.toml"]
    repo = shop.make_repo(root, {"Cargo.toml": cargo, "src/lib.rs": lib, "src/tests.rs": tests})
    unlink = sr("src/lib.rs", "rust", "#[cfg(test)]\nmod tests;", "")
    code, out = shop.run(repo, TASK, script([unlink]), "--test-cmd", "cargo test --offline",
                         "--max-iter", "1")  # fmt: skip
    assert (code, out["outcome"]) == (1, "failed"), json.dumps(out)[:3000]
    assert out["criterion"]["must_pass"] == ["src/lib.rs::tests::add_works"]
    assert out["criterion"]["remaining"] == ["src/lib.rs::tests::add_works"]
    assert (repo / "src/lib.rs").read_text() == lib
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    assert not any("target/" in m["content"] for m in messages)
    fix = sr("src/lib.rs", "rust", "    a - b", "    a + b")  # asked from the file as it was
    replies = script([unlink, fix, "fix(calc): add adds"])
    code, out = shop.run(repo, TASK, replies, "--test-cmd", "cargo test --offline")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = max((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    repair = messages[3]["content"]
    assert "did not pass in it" in repair and "src/lib.rs::tests::add_works" in repair
    assert "Your change removed `mod tests;` from src/lib.rs" in repair


def test_a_rust_compile_error_the_compiler_knows_the_fix_of_is_fixed_without_a_reply(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix Rust-33 and 37: replies that pushed a `&i32` where an `i32` goes, or
    borrowed a vector never declared `mut`, were refused at the types gate and their tests
    never ran, though rustc said the fix and called it safe to apply. The change is checked
    with rustc's fixes instead: here the type error, then the borrow error it hid."""
    repo, (path, fence, (bad, _), _, _) = _repo("rust", tmp_path, shop)
    body = "    let sums = Vec::new();\n    sums.push(a + b);\n    let first = &sums[0];\n    first"
    code, out = shop.run(repo, TASK, script([sr(path, fence, bad, body), "fix(calc): add adds"]),
                         "--test-cmd", "cargo test --offline", "--max-iter", "1")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    fixed = body.replace("let sums", "let mut sums").replace("    first", "    *first")
    assert (repo / path).read_text() == RUST_LIB.replace(bad, fixed)
    told = [n.split(" as the compiler")[0] for n in out["notes"] if "compiler" in n]
    assert told == [  # the user is told what the tool, not the model, changed
        "src/lib.rs:5: fixed [E0308] mismatched types: expected `i32`, found `&i32`",
        "src/lib.rs:3: fixed [E0596] cannot borrow `sums` as mutable, as it is not declared "
        "as mutable",
    ]


def test_a_missing_import_from_a_module_the_file_uses_is_added_without_a_reply(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix Rust-163: the file imported `max` from `std::cmp`, three replies called
    `min` without importing it, and each was refused at the types gate. rustc's import is
    added, said, and the change's tests run."""
    repo, (path, _, _, _, _) = _repo("rust", tmp_path, shop)
    text = (
        "use std::cmp::max;\n\npub fn add(a: i32, b: i32) -> i32 {\n    max(a, b) + min(a, b)\n}\n"
    )
    code, out = shop.run(repo, TASK, script([f"{path}\n```rust\n{text}```\n", "fix: add"]),
                         "--test-cmd", "cargo test --offline", "--max-iter", "1")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert "use std::cmp::min;" in (repo / path).read_text()
    assert any("fixed [E0425] cannot find function `min`" in n for n in out["notes"])


CHECK_JS = (
    "const assert = require('node:assert');\nconst { add } = require('../src/calc');\n\n"
    "assert.strictEqual(add(2, 3), 5);\n"
)


def _bare_repo(tmp_path: Path, shop: Any) -> Path:
    """``"test": "node test/check.js"``: a check script that reports no per-test outcome."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    root = tmp_path / "bare"
    root.mkdir()
    files = {"package.json": _package("node test/check.js"), "src/calc.js": CALC_JS,
             "test/check.js": CHECK_JS}  # fmt: skip
    repo: Path = shop.make_repo(root, files)
    return repo


def test_a_test_script_that_names_no_test_keeps_the_tests_read_only_all_the_same(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """``"test": "node test/check.js"`` reports no per-test outcome, so no test file was
    read-only: a reply that rewrote the check into one that passes ended ``solved``."""
    repo = _bare_repo(tmp_path, shop)
    cheat = sr(
        "test/check.js", "javascript", "assert.strictEqual(add(2, 3), 5);", "assert.ok(add);"
    )
    fix = sr("src/calc.js", "javascript", "  return a - b;", "  return a + b;")
    code, out = shop.run(repo, TASK, script([cheat, fix, "fix(calc): add adds"]),
                         "--test-cmd", "npm test")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / "test/check.js").read_text() == CHECK_JS
    assert "  return a + b;" in (repo / "src/calc.js").read_text()
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    prompts = [m["content"] for m in messages if m["role"] == "user"]
    assert "the tests your change must make pass. They are read-only" in prompts[0]
    assert "- test/check.js:4: `assert.strictEqual(add(2, 3), 5);`" in prompts[0]
    assert (
        "Your last reply (not kept here) began to rewrite test/check.js and was stopped there"
        in prompts[0]
    )


def test_a_bare_script_still_failing_after_a_comment_is_never_called_a_passed_test_gate(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """Without ``--test-cmd`` the detected ``npm test`` fails before the change and names no
    test: the change is at most unverified, and the run says the command still fails
    instead of "the change passed syntax, lint, tests gate(s)"."""
    repo = _bare_repo(tmp_path, shop)
    comment = sr(
        "src/calc.js", "javascript", "function add(a, b) {", "// adds\nfunction add(a, b) {"
    )
    code, out = shop.run(repo, TASK, script([comment, "chore(calc): a comment"]))
    assert (code, out["outcome"]) == (4, "unverified"), json.dumps(out)[:3000]
    said = " ".join(out["notes"])
    assert "`npm test --silent` still fails (exit 1), as it did before the change" in said
    assert "the change passed syntax, lint gate(s) only" in said
    assert "tests gate" not in said


def test_how_an_edit_was_applied_is_told_apart_from_what_failed(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """Polyglot Go octal: the import patchwright added for the reply was listed under "What
    failed:", as if it were one of the failures."""
    repo, (path, fence, (bad, good), _, said) = _repo("go", tmp_path, shop)
    uses_fmt = sr(path, fence, bad, f"\t_ = fmt.Sprint(a)\n{bad}")
    replies = script([uses_fmt, sr(path, fence, bad, good), "fix(calc): add adds"])
    code, out = shop.run(repo, TASK, replies)
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    repair = [m["content"] for m in messages if m["role"] == "user"][1]
    applied = 'How your edit was applied: calc.go: imported "fmt" (the change uses it;'
    assert applied in repair
    assert (
        said in repair.split("What failed:\n", 1)[1]
        and "imported" not in repair.split("What failed:\n", 1)[1]
    )


def test_a_go_change_is_laid_out_as_gofmt_lays_it_out_instead_of_refused_for_it(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """Polyglot Go bowling: two of four replies were refused as "not formatted as gofmt
    formats it", and their tests never ran. A file the user keeps unformatted stays so."""
    repo, (path, fence, (bad, _), _, _) = _repo("go", tmp_path, shop)
    spaced = sr(path, fence, bad, "    return a+b")
    code, out = shop.run(repo, TASK, script([spaced, "fix(calc): add adds"]), "--max-iter", "1")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / path).read_text() == GO_CALC.replace(bad, "\treturn a + b")
    own = GO_CALC.replace("func Add(a, b int) int {", "func Add(a, b int) int{")  # not gofmt's
    (repo / path).write_text(own)
    shop.git(repo, "commit", "-qam", "my layout")
    code, out = shop.run(repo, TASK, script([spaced, "fix(calc): add adds"]), "--max-iter", "1")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / path).read_text() == own.replace(bad, "    return a+b")


FUNCTIONS = {
    "node": "function add(a, b) {\n  return a + b;\n}\n",
    "go": "func Add(a, b int) int {\n\treturn a + b\n}\n",
    "rust": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
}
TEST_LINES = {"node": "assert.strictEqual(add(2, 3), 5)", "go": "func TestAdd(t *testing.T)",
              "rust": "fn add_returns_the_sum()"}  # fmt: skip


@pytest.mark.parametrize("kind", list(FUNCTIONS))
def test_after_a_failed_attempt_the_model_is_asked_for_the_function_the_failing_test_calls(
    kind: str, tmp_path: Path, script: Script, shop: Any
) -> None:
    """The one-function retry, in each language: HumanEvalFix Go-16's seven whole-file
    replies each sent main.go back unchanged; asked for the function alone, with the
    failing test and what it said, the 1.5B model has something smaller to get right."""
    repo, (path, fence, (bad, good), test_id, said) = _repo(kind, tmp_path, shop)
    before = (repo / path).read_text()
    name = FUNCTIONS[kind].split("(")[0].split()[-1]
    replies = script([sr(path, fence, bad, bad.replace("-", "/")),
                      f"The subtraction should be an addition.\n```{fence}\n{FUNCTIONS[kind]}```\n",
                      "fix(calc): add adds"])  # fmt: skip
    code, out = shop.run(repo, TASK, replies, "--max-iter", "2")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / path).read_text() == before.replace(bad, good)
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    asked = [m["content"] for m in messages if m["role"] == "user"][-1]
    assert f"A test fails. The bug is in the function `{name}` of {path}." in asked
    assert TEST_LINES[kind] in asked and said in asked and f"```{fence}\n" in asked
    assert f"The failing test ({test_id.split('::')[0]}):" in asked
    assert "What the test run says:" in asked and "with its comment" in asked


@pytest.mark.parametrize("kind", list(FUNCTIONS))
def test_when_the_corrected_function_fails_too_it_is_asked_for_anew_without_its_body(
    kind: str, tmp_path: Path, script: Script, shop: Any
) -> None:
    """The third way in, in each language: the file with the function's body left out, the
    failing test and what it said; the reply, the function alone, takes its namesake's place."""
    repo, (path, fence, (bad, good), _, said) = _repo(kind, tmp_path, shop)
    before = (repo / path).read_text()
    wrong = FUNCTIONS[kind].replace("a + b", "a * b")
    replies = script([sr(path, fence, bad, bad.replace("-", "/")), f"```{fence}\n{wrong}```\n", f"```{fence}\n{FUNCTIONS[kind]}```\n",
                      "fix(calc): add adds"])  # fmt: skip
    code, out = shop.run(repo, TASK, replies, "--max-iter", "3")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / path).read_text() == before.replace(bad, good)
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    trajectory = json.loads((run_dir / "trajectory.json").read_text())
    ways = [a["way"] for a in trajectory["actions"] if "refocus" in a]
    assert ways == ["fix", "rewrite"]
    asked = [m["content"] for m in trajectory["messages"] if m["role"] == "user"][-1]
    assert "// the body: to write" in asked and bad.strip() not in asked
    assert TEST_LINES[kind] in asked and said in asked
    assert "its comment, its signature unchanged, and a new body" in asked


def test_a_failed_go_change_sent_again_in_another_layout_counts_as_a_repeat(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix Go-13: the one-function retry re-sent the whole-file attempt's failed
    change in the file's own layout, and it was checked again at the cost of an iteration.
    Known as a repeat, it is answered with a new conversation within the same iteration."""
    repo, (path, fence, (bad, good), _, _) = _repo("go", tmp_path, shop)
    wrong = sr(path, fence, bad, "\treturn a - b + 0 // keep the sign")
    again = "```go\nfunc Add(a, b int) int {\n    return a-b+0\n}\n```\n"
    replies = script([wrong, again, f"```go\n{FUNCTIONS['go']}```\n", "fix(calc): add adds"])
    code, out = shop.run(repo, TASK, replies, "--max-iter", "2")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert good in (repo / path).read_text()
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    actions = json.loads((run_dir / "trajectory.json").read_text())["actions"]
    assert [a["attempt"] for a in actions if "attempt" in a] == ["applied", "repeated", "applied"]


@pytest.mark.parametrize(
    "fmt_args",
    [(), ("--edit-format", "whole")],
    ids=["function-convicted", "runner-named-test-only"],
)
def test_a_reply_that_only_re_spaces_the_go_file_changes_nothing(
    tmp_path: Path, script: Script, shop: Any, fmt_args: tuple[str, ...]
) -> None:
    """HumanEvalFix Go-34: a whole-file reply that only turned main.go's tabs into spaces was
    checked, failed exactly as before, and cost an iteration. It is an echo: told so, the
    model answers again within the same iteration. So too with no function convicted (the
    user's edit format plans no one-function retry): a failing test its runner named cannot
    pass by re-spacing (HumanEvalFix Rust-160's re-spaced src/lib.rs spent an iteration)."""
    repo, (path, _, (bad, good), _, _) = _repo("go", tmp_path, shop)
    spaced = GO_CALC.replace("\t", "    ")
    fixed = GO_CALC.replace(bad, good)
    replies = script([f"{path}\n```go\n{spaced}```\n", f"{path}\n```go\n{fixed}```\n",
                      "fix(calc): add adds"])  # fmt: skip
    code, out = shop.run(repo, TASK, replies, "--max-iter", "1", *fmt_args)
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    trajectory = json.loads((run_dir / "trajectory.json").read_text())
    assert [a["attempt"] for a in trajectory["actions"] if "attempt" in a] == [
        "unchanged", "applied"]  # fmt: skip
    told = next(m["content"] for m in trajectory["messages"] if m["role"] == "user")
    assert f"Your last reply (not kept here) changed only the layout and comments of {path}" in told


CLAMP = ("package calc\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn hi\n\t}\n"
         "\tif x > hi {\n\t\treturn lo\n\t}\n\treturn x + 1\n}\n")  # fmt: skip
CLAMP_TESTS = (
    'package calc\n\nimport "testing"\n\nfunc TestClamp(t *testing.T) {\n'
    + "".join(
        f"\tif got := Clamp({x}, 0, 10); got != {want} {{\n"
        f'\t\tt.Errorf("Clamp({x}, 0, 10) = %d, want {want}", got)\n\t}}\n'
        for x, want in ((5, 5), (-1, 0), (11, 10), (7, 7))
    )
    + "}\n"
)


def test_a_go_change_that_fixes_most_failing_checks_is_repaired_in_its_own_conversation(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix Go-58: the first change left 1 of the 3 failing checks, and the
    one-function retry that followed started again from the unchanged function and never
    came that close again. A change this close is repaired where the model can see it."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    repo = shop.make_repo(tmp_path / "clamp", {"go.mod": "module example.com/calc\n\ngo 1.19\n",
                                               "calc.go": CLAMP, "calc_test.go": CLAMP_TESTS})  # fmt: skip
    close = CLAMP.replace("return hi", "return lo", 1).replace("x + 1", "x")
    fixed = close.replace("\t\treturn lo\n\t}\n\treturn x", "\t\treturn hi\n\t}\n\treturn x")
    replies = script([f"calc.go\n```go\n{close}```\n", f"calc.go\n```go\n{fixed}```\n",
                      "fix(calc): clamp clamps"])  # fmt: skip
    code, out = shop.run(repo, "Clamp() returns the wrong result; fix it.", replies,
                         "--max-iter", "2")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / "calc.go").read_text() == fixed
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    trajectory = json.loads((run_dir / "trajectory.json").read_text())
    assert not [a for a in trajectory["actions"] if "refocus" in a]
    asked = [m["content"] for m in trajectory["messages"] if m["role"] == "user"]
    assert len(asked) == 2 and close in trajectory["messages"][2]["content"]
    assert "That change made 3 of the 4 failing checks pass" in asked[1]
    assert "Clamp(11, 0, 10) = 0, want 10" in asked[1]


def test_a_close_change_whose_repair_comes_no_closer_moves_on_to_the_function(
    tmp_path: Path, script: Script, shop: Any
) -> None:
    """HumanEvalFix Go-80: the repair of a change that left 1 failing check left the same one,
    and its conversation was kept for a third attempt that only repeated it. A close change
    keeps its conversation while each repair comes closer; then the one-function retry."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    repo = shop.make_repo(tmp_path / "clamp", {"go.mod": "module example.com/calc\n\ngo 1.19\n",
                                               "calc.go": CLAMP, "calc_test.go": CLAMP_TESTS})  # fmt: skip
    close = CLAMP.replace("return hi", "return lo", 1).replace("x + 1", "x")
    as_close = close.replace("\t\treturn lo\n\t}\n\treturn x", "\t\treturn lo + 0\n\t}\n\treturn x")
    fixed = close.replace("\t\treturn lo\n\t}\n\treturn x", "\t\treturn hi\n\t}\n\treturn x")
    function = fixed.split("\n\n", 1)[1]
    replies = script([f"calc.go\n```go\n{close}```\n", f"calc.go\n```go\n{as_close}```\n",
                      f"```go\n{function}```\n", "fix(calc): clamp clamps"])  # fmt: skip
    code, out = shop.run(repo, "Clamp() returns the wrong result; fix it.", replies,
                         "--max-iter", "3")  # fmt: skip
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    assert (repo / "calc.go").read_text() == fixed
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    actions = json.loads((run_dir / "trajectory.json").read_text())["actions"]
    assert [(a["iteration"], a["refocus"]) for a in actions if "refocus" in a] == [(3, "Clamp")]
