"""The types gate: mypy with the repository's own config, only new errors block."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from patchwright.verify import Baseline, TypesGate
from patchwright.verify.typecheck import has_type_hints, parse_mypy

GATE = [TypesGate()]
MYPY_INI = "[mypy]\nstrict_optional = True\n"
OLD = "def f(x: int) -> int:\n    return x\n\n\nbad: int = 'old error'\n"


def test_new_type_errors_fail_old_ones_do_not_and_fixes_are_reported(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"mypy.ini": MYPY_INI, "pkg/__init__.py": "", "pkg/m.py": OLD})
    base = baseline()
    write({"pkg/m.py": "import os\n\n" + OLD + "\n\ny: str = f(1)\n"})
    result = check(base, ["pkg/m.py"], gates=GATE)["types"]
    assert result.status == "failed", result.reason
    (problem,) = result.new_problems
    assert problem.path == "pkg/m.py" and problem.code == "assignment" and problem.line == 10
    assert "str" in problem.message

    # fix the old error and the new one: passes, and the old one is reported fixed
    write({"pkg/m.py": OLD.replace("'old error'", "1")})
    result = check(base, ["pkg/m.py"], gates=GATE)["types"]
    assert result.status == "passed" and result.new_problems == []
    assert [p.code for p in result.fixed_problems] == ["assignment"]


def test_skipped_with_a_reason_when_the_repo_does_not_use_types(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"plain.py": "def f(x):\n    return x + 1\n"})
    base = baseline()
    result = check(base, ["plain.py"], gates=GATE)["types"]
    assert result.status == "skipped"
    assert "does not configure mypy" in (result.reason or "")


def test_type_hint_detection_and_output_parsing() -> None:
    assert has_type_hints("def f(x: int): ...\n")
    assert has_type_hints("x: int = 1\n")
    assert not has_type_hints("def f(x):\n    return x\n")
    out = (
        "a.py:3:5: error: Incompatible types in assignment  [assignment]\n"
        "a.py:3:5: note: a note\n"
        "other.py:1:1: error: Name 'x' is not defined  [name-defined]\n"
    )
    (p,) = parse_mypy(out, {"a.py"})
    assert (p.line, p.code, p.message) == (3, "assignment", "Incompatible types in assignment")


def test_a_missing_mypy_where_the_gate_applies_could_not_run(
    monkeypatch: pytest.MonkeyPatch, write: Callable[..., None],
    baseline: Callable[..., Baseline], check: Callable[..., Any],
) -> None:  # fmt: skip
    import patchwright.verify.typecheck as typecheck
    from patchwright.verify.tools import python_tool

    monkeypatch.setattr(typecheck, "python_tool", lambda module: python_tool(f"no_such_{module}"))
    write({"mypy.ini": MYPY_INI, "m.py": OLD})
    base = baseline()
    write({"m.py": OLD + "\ny: str = 1\n"})
    result = check(base, ["m.py"], gates=GATE)["types"]
    assert (result.status, result.ok) == ("could_not_run", False)
    assert result.reason == "mypy could not run: is not installed, but the gate applies here"


def test_a_mypy_that_crashes_on_its_config_could_not_run_with_its_own_message(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    write({"mypy.ini": "[mypy]\nplugins = nonexistent_plugin\n", "m.py": "x: int = 1\n"})
    base = baseline()
    write({"m.py": 'x: int = 1\ny: int = "oops"\n'})
    result = check(base, ["m.py"], gates=GATE)["types"]
    assert (result.status, result.ok, result.could_not_run) == ("could_not_run", False, True)
    assert "mypy could not run: exited 2" in (result.reason or "")
    assert 'Error importing plugin "nonexistent_plugin"' in (result.reason or "")
    assert result.new_problems == []  # no verdict: neither the error nor a pass


def test_a_mypy_whose_interpreter_lacks_it_could_not_run(
    monkeypatch: pytest.MonkeyPatch, write: Callable[..., None],
    baseline: Callable[..., Baseline], check: Callable[..., Any],
) -> None:  # fmt: skip
    import sys

    import patchwright.verify.typecheck as typecheck

    # `python -m mypy` with an interpreter that has no mypy: exit 1 and a traceback, which
    # is not "found errors"
    monkeypatch.setattr(typecheck, "python_tool", lambda m: [sys.executable, "-m", f"no_{m}"])
    write({"mypy.ini": MYPY_INI, "m.py": OLD})
    base = baseline()
    write({"m.py": OLD + '\ny: int = "oops"\n'})
    result = check(base, ["m.py"], gates=GATE)["types"]
    assert result.status == "could_not_run"
    assert "No module named no_mypy" in (result.reason or "")


def test_two_files_mypy_would_name_alike_are_checked_not_refused(
    write: Callable[..., None], baseline: Callable[..., Baseline], check: Callable[..., Any]
) -> None:
    # sympy's doc/src/conf.py and doc/api/conf.py: mypy refuses "Duplicate module named conf"
    write({"mypy.ini": MYPY_INI, "doc/src/conf.py": "x: int = 1\n", "doc/api/conf.py": OLD})
    base = baseline()
    write({"doc/src/conf.py": "x: int = 'now wrong'\n"})

    result = check(base, ["doc/src/conf.py", "doc/api/conf.py"], gates=GATE)["types"]

    assert result.status == "failed", result.reason
    (problem,) = result.new_problems
    assert (problem.path, problem.code) == ("doc/src/conf.py", "assignment")
