"""The edit prompt speaks the language of the code it asks about: its worked example is a fix
in that language, under that language's fence tag, and is itself a reply the edit parsers
read and apply — so a model asked about ``calc.go`` sees a ```` ```go ```` block of Go.

Before: every prompt's example was ``calc/ops.py`` in a ```` ```python ```` block, whatever
the repository held.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from patchwright.agent.lang_examples import EXAMPLES, edit_language
from patchwright.agent.prompts import render
from patchwright.agent.request import Overrides, build_request
from patchwright.agent.session import Session
from patchwright.agent.solve import solve
from patchwright.config import Settings
from patchwright.edits import apply_edits, parse_reply

FENCES = {"python": "python", "javascript": "javascript", "typescript": "typescript",
          "go": "go", "rust": "rust"}  # fmt: skip


def _example_reply(system: str) -> str:
    """The worked example of a system prompt: what a reply to it looks like."""
    return system.split("Example — ", 1)[1].split(":\n\n", 1)[1].split("\nRules:", 1)[0]


@pytest.mark.parametrize("fmt", ["diff", "whole", "udiff"])
@pytest.mark.parametrize("lang", list(FENCES))
def test_the_example_is_in_the_language_and_the_parsers_apply_it(lang: str, fmt: str) -> None:
    ex = EXAMPLES[lang]
    reply = _example_reply(render("system", fmt=fmt, lang=lang))
    fence = "diff" if fmt == "udiff" else FENCES[lang]
    assert f"```{fence}\n" in reply and ex.path in reply
    parsed = parse_reply(reply)
    assert not parsed.errors and [e.path for e in parsed.edits] == [ex.path]
    result = apply_edits(parsed.edits, {ex.path: ex.head + ex.before + "\n"})
    assert result.new_texts == {ex.path: ex.head + ex.after + "\n"}


def test_a_caller_that_names_no_language_keeps_the_python_example() -> None:
    for fmt in ("diff", "whole", "udiff"):
        assert render("system", fmt=fmt) == render("system", fmt=fmt, lang="python")
        assert render("system", fmt=fmt, lang="cobol") == render("system", fmt=fmt)
    assert "calc/ops.py\n```python\n" in render("system", fmt="diff")


@pytest.mark.parametrize(
    ("paths", "lang"),
    [
        (["tests/test_calc.py", "calc/calc.go", "calc/calc_test.go", "README.md"], "go"),
        (["src/a.ts", "src/b.tsx", "src/c.js"], "typescript"),
        (["src/lib.rs", "build.py"], "rust"),  # a tie: the first file's language
        (["test/a.test.mjs"], "javascript"),  # tests count when nothing else does
        (["Makefile", "docs/x.md"], "python"),
    ],
)
def test_the_language_is_that_of_most_files_the_model_may_edit(paths: list[str], lang: str) -> None:
    assert edit_language(paths) == lang


GO_CALC = "package calc\n\nfunc Sum(xs []int) int {\n\treturn 0\n}\n"
GO_TEST = (
    'package calc\n\nimport "testing"\n\nfunc TestTotals(t *testing.T) {\n'
    "\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fail()\n\t}\n}\n"
)


def test_a_go_task_gets_a_go_prompt_with_the_packages_tests(tmp_path: Path, shop: Any) -> None:
    """Through ``solve``: the system prompt's example is Go, the file is shown in a go fence,
    and its package's test is shown beside it (``true`` as the test command keeps it fast)."""
    repo = shop.make_repo(tmp_path / "abacus", {
        "go.mod": "module example.com/abacus\n\ngo 1.19\n",
        "calc/calc.go": GO_CALC, "calc/totals_test.go": GO_TEST,
    })  # fmt: skip
    script = tmp_path / "script.jsonl"
    script.write_text((json.dumps({"content": "I cannot tell what is wrong."}) + "\n") * 4)
    settings = Settings.model_validate({"model": {"name": f"scripted:{script}"}})
    request = build_request("calc/calc.go: Sum is wrong", settings,
                            Overrides(test_cmd="true", max_iter=1, yes=True))  # fmt: skip
    result = solve(Session(settings, repo), request)
    assert result.outcome == "failed"  # no edit: only the prompt is looked at
    run = repo / ".patchwright" / "runs" / result.run_id / "trajectory.json"
    system, task = (m["content"] for m in json.loads(run.read_text())["messages"][:2])
    assert "calc/ops.go\n```go\npackage calc\n" in system and "```python" not in system
    assert f"calc/calc.go\n```go\n{GO_CALC}```" in task
    assert f"calc/totals_test.go\n```go\n{GO_TEST}```" in task
