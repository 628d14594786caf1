"""The lint gate: ruff with the repository's config and ``node --check``; only new problems
fail, fixed ones are reported, and a missing tool skips the gate with the reason."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from patchwright.verify import Baseline, LintGate

GATE = [LintGate()]
PYPROJECT = '[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = ["F", "E"]\n'


def test_preexisting_lint_error_does_not_block_but_a_new_one_does(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"pyproject.toml": PYPROJECT, "m.py": "import os\n\n\ndef f():\n    return 1\n"})
    base = baseline()
    # lines inserted above the old F401 move it; it must still count as old
    write({"m.py": '"""Doc."""\n\nimport os\n\n\ndef f():\n    return 1\n'})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert result.status == "passed", result.output
    assert result.new_problems == [] and result.fixed_problems == []

    write({"m.py": "import os\nimport sys\n\n\ndef f():\n    return undefined_name\n"})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert result.status == "failed"
    assert sorted(p.code or "" for p in result.new_problems) == ["F401", "F821"]
    assert all(p.path == "m.py" and p.line for p in result.new_problems)
    assert "sys" in next(p.message for p in result.new_problems if p.code == "F401")


def test_a_fixed_lint_error_is_reported_and_config_is_respected(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    # the repo ignores E731: assigning a lambda is not a problem here
    write({
        "pyproject.toml": PYPROJECT + 'ignore = ["E731"]\n',
        "m.py": "import os\n\nf = lambda: 1\n",
        "new.py": "x = 1\n",
    })  # fmt: skip
    base = baseline()
    write({"m.py": "f = lambda: 2\n", "brand_new.py": "import json\n"})
    result = check(base, ["m.py", "brand_new.py"], gates=GATE)["lint"]
    assert [p.code for p in result.fixed_problems] == ["F401"]
    assert [(p.path, p.code) for p in result.new_problems] == [("brand_new.py", "F401")]


NESTED_IF = (
    "def f(xs):\n    for x in xs:\n        if x:\n            if x > 1:\n                return x\n"
)


def test_without_a_ruff_config_only_errors_fail_not_style(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"m.py": "x = 1\n"})
    base = baseline()
    write({"m.py": "import os\n\n" + NESTED_IF})  # SIM102, F401: style and hygiene, not errors
    assert check(base, ["m.py"], gates=GATE)["lint"].status == "passed"
    write({"m.py": NESTED_IF + "\n\ndef g():\n    return missing\n"})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert [p.code for p in result.new_problems] == ["F821"]


def test_a_repository_ruff_config_chooses_the_rules(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"ruff.toml": '[lint]\nselect = ["SIM"]\n', "m.py": "x = 1\n"})
    base = baseline()
    write({"m.py": NESTED_IF})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert [p.code for p in result.new_problems] == ["SIM102"]


def test_node_check_catches_a_new_javascript_syntax_error(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed here")
    write({"app.js": "function f() {\n  return 1;\n}\n"})
    base = baseline()
    write({"app.js": "function f() {\n  return 1;\n}}\n"})
    result = check(base, ["app.js"], gates=GATE)["lint"]
    assert result.status == "failed"
    (problem,) = result.new_problems
    assert problem.line == 3 and problem.code == "node-check" and "SyntaxError" in problem.message


def test_missing_node_skips_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Callable[..., None],
    baseline: Callable[..., Baseline], check: Callable[..., Any],
) -> None:  # fmt: skip
    write({"app.js": "let a = 1;\n"})
    base = baseline()
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    write({"app.js": "let a = ;\n"})
    result = check(base, ["app.js"], gates=GATE)["lint"]
    assert result.status == "skipped"
    assert "node is not on PATH" in (result.reason or "")
    assert os.environ["PATH"] == str(empty)


def test_missing_ruff_could_not_run(
    monkeypatch: pytest.MonkeyPatch, write: Callable[..., None],
    baseline: Callable[..., Baseline], check: Callable[..., Any],
) -> None:  # fmt: skip
    import patchwright.verify.lint as lint
    from patchwright.verify.tools import python_tool

    assert python_tool("patchwright_no_such_linter") is None  # the real lookup finds nothing
    monkeypatch.setattr(lint, "python_tool", lambda module: python_tool(f"no_such_{module}"))
    write({"m.py": "x = 1\n"})
    base = baseline()
    write({"m.py": "import os\nx = 2\n"})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert result.reason == "could not lint: ruff is not installed, and Python files were touched"


def test_a_ruff_config_that_ruff_rejects_could_not_run_with_ruffs_message(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"ruff.toml": 'line-length = "wide"\n', "m.py": "x = 1\n"})
    base = baseline()
    write({"m.py": "x = undefined_name\n"})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert "ruff exited 2" in (result.reason or "")
    assert "ruff.toml" in (result.reason or "") and "expected i64" in (result.reason or "")


def test_a_ruff_that_cannot_start_could_not_run(
    repo: Path, monkeypatch: pytest.MonkeyPatch, write: Callable[..., None],
    baseline: Callable[..., Baseline], check: Callable[..., Any],
) -> None:  # fmt: skip
    import patchwright.verify.lint as lint

    # a virtualenv whose base interpreter was removed: its ruff script cannot start
    broken = repo / "old-venv" / "bin" / "ruff"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/nonexistent/python3\nimport ruff\n")
    broken.chmod(0o755)
    monkeypatch.setattr(lint, "python_tool", lambda module: [str(broken)])
    write({"m.py": "x = 1\n"})
    base = baseline()
    write({"m.py": "x = 2\n"})
    result = check(base, ["m.py"], gates=GATE)["lint"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert (result.reason or "").startswith("could not lint: ruff ")
    # the exec error, as the layer in force words it (bubblewrap's exec; unshare's sh init)
    assert re.search(rf"{re.escape(str(broken))}: (No such file or directory|not found)",
                     result.reason or "")  # fmt: skip
