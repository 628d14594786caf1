"""What ``patchwright run`` tells the model about a failure that says little by itself: a test
command its own ``timeout`` stopped (no output at all), and node's ``console.assert failed``,
which names a line of the read-only test file but not its code.

HumanEvalFix JavaScript-10 (``makePalindrome`` looped forever): four repairs were told only
"`timeout 20 node main.test.js` exited 124:", then only "console.assert failed … at
main.test.js:10:11", and none of them found the bug."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

LOOPING = """const isPalindrome = (s) => s == s.split('').reverse().join('');

/* The shortest palindrome that begins with the string. */
const makePalindrome = (string) => {
  let start = 0;
  while (!isPalindrome(string))
    start += 1;
  return string + string.slice(0, start).split('').reverse().join('');
}

module.exports = { isPalindrome, makePalindrome };
"""
TESTS = """const assert = require('node:assert');
console.assert = (cond, ...msg) =>
  assert.ok(cond, msg.length ? msg.join(' ') : 'console.assert failed');
const { makePalindrome } = require('./main.js');

console.assert(makePalindrome('') === '')
console.assert(makePalindrome('xyz') === 'xyzyx')
"""
WRONG = "  while (!isPalindrome(string.slice(start)) && start < 1)"
TASK = "The function `makePalindrome` in main.js has a bug. Fix the bug."


def test_a_timed_out_run_and_an_assertion_without_code_are_explained(
    tmp_path: Path, script: Any, shop: Any
) -> None:
    if shutil.which("node") is None or shutil.which("timeout") is None:
        pytest.skip("node or timeout is not installed")
    repo = shop.make_repo(tmp_path / "js", {"main.js": LOOPING, "main.test.js": TESTS})
    wrong = LOOPING.replace("  while (!isPalindrome(string))", WRONG)
    replies = script([f"main.js\n```javascript\n{wrong}```\n"])
    code, out = shop.run(repo, TASK, replies, "--max-iter", "1",
                         "--test-cmd", "timeout 1 node main.test.js")  # fmt: skip
    assert (code, out["outcome"]) == (1, "failed"), json.dumps(out)[:2000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    first, repair = [m["content"] for m in messages if m["role"] == "user"]
    said = "exited 124: its `timeout` stopped it after 1s — the code did not finish"
    assert said in first
    assert "Where the test run points in the tests:" in repair
    assert "main.test.js:7: `console.assert(makePalindrome('xyz') === 'xyzyx')`" in repair
    assert (repo / "main.js").read_text() == LOOPING
