"""The runtime smoke gate: start the entry point briefly, fail on a new traceback."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from patchwright.verify import Baseline, SmokeGate, find_entry

GATE = [SmokeGate()]
SERVER = "import time\nprint('serving')\nwhile True:\n    time.sleep(0.1)\n"


def test_a_new_crash_fails_and_a_long_running_program_passes(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"main.py": SERVER})
    base = baseline(smoke_seconds=1.5)
    assert base.smoke is not None and not base.smoke.crashed
    assert check(base, ["main.py"], gates=GATE, smoke_seconds=1.5)["smoke"].status == "passed"

    write({"main.py": "import time\nraise RuntimeError('boom at start')\n" + SERVER})
    result = check(base, ["main.py"], gates=GATE, smoke_seconds=1.5)["smoke"]
    assert result.status == "failed"
    (problem,) = result.new_problems
    assert problem.message == "RuntimeError: boom at start"
    assert "Traceback" in problem.detail


def test_a_crash_already_there_at_baseline_does_not_block(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"app.py": "raise SystemExit(int('x'))\n"})
    base = baseline(smoke_seconds=2)
    write({"app.py": "# unrelated\nraise SystemExit(int('x'))\n"})
    result = check(base, ["app.py"], gates=GATE, smoke_seconds=2)["smoke"]
    assert result.status == "passed" and "same way" in (result.reason or "")


def test_entry_points_are_found_in_order(repo: Path, write: Callable[..., None]) -> None:
    assert find_entry(repo) is None
    write({"app.py": ""})
    assert find_entry(repo) is not None and find_entry(repo)[0] == "app.py"  # type: ignore[index]
    write({"src/tool/__init__.py": "", "src/tool/__main__.py": ""})
    assert find_entry(repo)[0] == "python -m tool"  # type: ignore[index]
    write({"pyproject.toml": '[project]\nname = "t"\n[project.scripts]\nt = "tool.cli:main"\n'})
    label, argv = find_entry(repo)  # type: ignore[misc]
    assert label.startswith("console script t") and "from tool.cli import main" in argv[-1]


def test_no_entry_point_is_a_stated_skip(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"lib.py": "x = 1\n"})
    result = check(baseline(), ["lib.py"], gates=GATE, smoke_seconds=1)["smoke"]
    assert result.status == "skipped" and "no entry point" in (result.reason or "")


def test_a_program_whose_interpreter_cannot_start_could_not_run(
    repo: Path, write: Callable[..., None], baseline: Callable[..., Baseline],
    check: Callable[..., Any],
) -> None:  # fmt: skip
    # the repository's .venv outlived the Python it was made from: nothing can start in it
    write({"app.py": SERVER, ".venv/bin/python": "#!/nonexistent/python3.11\n"})
    (repo / ".venv" / "bin" / "python").chmod(0o755)
    base = baseline(smoke_seconds=1)
    write({"app.py": "import sys\nsys.exit('crashed ' + 1)\n"})
    result = check(base, ["app.py"], gates=GATE, smoke_seconds=1)["smoke"]
    assert (result.status, result.ok) == ("could_not_run", False)
    # the exec error, as the layer in force words it (bubblewrap's exec; unshare's sh init)
    assert re.search(
        r"\.venv/bin/python: (No such file or directory|not found)", result.reason or ""
    )
