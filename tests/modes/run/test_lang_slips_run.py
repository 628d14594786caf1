"""A Go repository that does not build because a helper is declared and never used
(HumanEvalFix Go-127), with real go: the first prompt says Go's rule, and a reply that uses
a conditional operator is refused by the syntax gate and told Go's way to write it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

PICK = (
    "package pick\n\n// Pick says whether n is big (over 10).\nfunc Pick(n int) string {\n"
    "\tisBig := func(n int) bool {\n\t\treturn n > 10\n\t}\n"
    '\tif n > 0 {\n\t\treturn "big"\n\t}\n\treturn "small"\n}\n'
)
TESTS = (
    'package pick\n\nimport "testing"\n\nfunc TestPick(t *testing.T) {\n'
    '\tif got := Pick(11); got != "big" {\n\t\tt.Errorf("Pick(11) = %q, want big", got)\n\t}\n'
    '\tif got := Pick(3); got != "small" {\n\t\tt.Errorf("Pick(3) = %q, want small", got)\n\t}\n}\n'
)
TERNARY = PICK.replace('\tif n > 0 {\n\t\treturn "big"\n\t}\n\treturn "small"\n',
                       '\treturn isBig(n) ? "big" : "small"\n')  # fmt: skip
FIXED = PICK.replace("if n > 0 {", "if isBig(n) {")


def test_gos_rules_are_said_where_its_errors_leave_them_unsaid(
    tmp_path: Path, script: Callable[[list[str]], Path], shop: Any
) -> None:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    files = {"go.mod": "module example.com/pick\n\ngo 1.19\n", "pick.go": PICK,
             "pick_test.go": TESTS}  # fmt: skip
    repo = shop.make_repo(tmp_path / "pick", files)
    replies = script([f"pick.go\n```go\n{x}```\n" for x in (TERNARY, FIXED)] + ["fix: big"])
    code, out = shop.run(repo, "Pick() is wrong; fix it.", replies, "--test-cmd", "go test ./...")
    assert (code, out["outcome"]) == (0, "solved"), json.dumps(out)[:3000]
    run_dir = next((repo / ".patchwright" / "runs").iterdir())
    messages = json.loads((run_dir / "trajectory.json").read_text())["messages"]
    first, repair = [m["content"] for m in messages if m["role"] == "user"][:2]
    assert "Go refuses a variable that is declared and never used, as `isBig` is" in first
    assert (
        'pick.go:8: `return isBig(n) ? "big" : "small"` — Go has no conditional operator '
        "`c ? a : b`: write an if statement" in repair
    )
