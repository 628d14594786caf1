"""SBFL over real per-test coverage, the validators and the fusion of signals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from swebench_case import OPS, where_for

from patchwright.envs import spec_for
from patchwright.modes.swebench.code import changed_lines, function_spans
from patchwright.modes.swebench.localise import (
    Signals,
    fuse,
    gold,
    issue_frames,
    traceback_functions,
)
from patchwright.modes.swebench.own_tests import related_test_files
from patchwright.modes.swebench.propose import Reader
from patchwright.modes.swebench.sbfl import ochiai, sbfl
from patchwright.modes.swebench.setup import cleanup, prepare_instance
from patchwright.modes.swebench.tests import run_instance_tests
from patchwright.modes.swebench.validate import Caps, api_changes, validate


def test_sbfl_ranks_the_planted_function_first(calc_world: dict[str, Any]) -> None:
    where = where_for(calc_world)
    prepared = prepare_instance(where, calc_world["instance"])
    try:
        data = prepared.home / "sbfl" / ".coverage"
        data.parent.mkdir()
        report = run_instance_tests(
            prepared.env, prepared.instance, prepared.spec, coverage_file=data
        )
        assert report.status["tests/test_ops.py::test_mean_of_floats"] == "FAILED"
        ranked = sbfl(data, prepared.repo, report.status, Reader(prepared.repo).text)
        assert [(s.path, s.name) for s in ranked[:1]] == [("calc/ops.py", "mean")]
        assert ranked[0].score == 1.0  # the floor-division line runs only in the failing test
        assert "test_ops.py" not in {Path(s.path).name for s in ranked}  # tests are not suspects
    finally:
        prepared.env.close()
        cleanup(where, prepared.instance, prepared.home)


def test_ochiai() -> None:
    assert ochiai(1, 0, 1) == 1.0
    assert ochiai(0, 5, 1) == 0.0
    assert round(ochiai(1, 1, 1), 3) == 0.707


def test_traceback_frames_name_the_innermost_function_of_the_repository(tmp_path: Path) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text(OPS)
    log = ("tests/test_ops.py:3: in test_mean_of_floats\n    assert mean([1.0]) == 1.5\n"
           "calc/ops.py:16: in mean\n    total = add_all(xs)\n"
           f'  File "{tmp_path}/calc/ops.py", line 11, in add_all\n')  # fmt: skip
    found = traceback_functions(log, tmp_path, Reader(tmp_path).text)
    assert [name for _, name, _ in found] == ["add_all", "mean"]


def test_traceback_frames_outside_the_checkout_are_not_suspects(tmp_path: Path) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text(OPS)
    log = ("calc/ops.py:16: in mean\n    total = add_all(xs)\n"
           "../.venv/lib/python3.9/site-packages/_pytest/recwarn.py:285: in __exit__\n")  # fmt: skip
    found = traceback_functions(log, tmp_path, Reader(tmp_path).text)
    assert [(path, name) for path, name, _ in found] == [("calc/ops.py", "mean")]


def test_fusion_prefers_functions_several_signals_agree_on(tmp_path: Path) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text(OPS)
    signals = Signals(
        traceback=[("calc/ops.py", "add_all", 8), ("calc/ops.py", "mean", 15)],
        index=[("calc/ops.py", "mean", 15), ("calc/ops.py", "median", 22)],
    )
    suspects = fuse(signals, Reader(tmp_path).text)
    assert suspects[0].name == "mean" and suspects[0].evidence == ("traceback", "index")
    assert suspects[0].end == 19  # the span comes from the file


def test_gold_files_and_functions_come_from_the_patch(
    calc_world: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "ops.py").write_text(OPS)
    files, functions = gold(calc_world["row"]["patch"], Reader(tmp_path).text)
    assert files == ["calc/ops.py"] and functions == ["calc/ops.py::mean"]
    assert changed_lines(calc_world["row"]["patch"]) == {"calc/ops.py": {18}}


def _check(
    diff: str, changes: dict[str, bytes | None], allowed: set[str], task: str = ""
) -> list[str]:
    return validate(diff, changes, allowed=allowed, old_text=lambda _p: OPS, task=task,
                    caps=Caps(max_lines=4, max_files=1)).reasons  # fmt: skip


def test_validators_refuse_bad_shapes_outside_files_big_diffs_and_api_changes() -> None:
    new = OPS.replace("def mean(xs):", "def mean(xs, weights=None):").encode()
    diff = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -15 +15 @@\n-def mean(xs):\n+def mean(xs, weights=None):\n"
    assert _check("just prose", {"calc/ops.py": new}, {"calc/ops.py"}) == [
        "shape: not a unified diff with files and hunks"
    ]
    reasons = _check(diff, {"calc/ops.py": new, "setup.py": b""}, {"calc/ops.py"})
    assert any(r.startswith("allowlist:") and "setup.py" in r for r in reasons)
    assert any("2 files (cap 1)" in r for r in reasons)
    assert any(r.startswith("api: calc/ops.py: mean(xs) → mean(xs, weights=None)") for r in reasons)
    assert not any(
        r.startswith("api:")
        for r in _check(diff, {"calc/ops.py": new}, {"calc/ops.py"}, "give mean weights")
    )
    big = diff + "".join(f"+x{n}\n" for n in range(5))
    assert any(
        r.startswith("size: 7 changed lines")
        for r in _check(big, {"calc/ops.py": new}, {"calc/ops.py"})
    )


def test_private_functions_may_change_their_signature() -> None:
    old = "def _helper(a):\n    return a\n"
    assert api_changes(old, "def _helper(a, b):\n    return a\n", "") == []
    assert [s.name for s in function_spans(OPS)] == ["add", "add_all", "mean", "median"]


def test_the_instance_spec_comes_from_its_eval_script(calc_world: dict[str, Any]) -> None:
    spec = spec_for("example/calc", "1.0", calc_world["row"]["eval_script"])
    assert spec.source == "eval_script"
    assert (
        spec.test_command(["tests/test_ops.py"])
        == "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 pytest -rA tests/test_ops.py"
    )


def test_an_issue_s_quoted_traceback_names_the_checkout_s_functions(tmp_path: Path) -> None:
    (tmp_path / "src" / "calc").mkdir(parents=True)
    (tmp_path / "src" / "calc" / "ops.py").write_text(OPS)
    paths = ["src/calc/ops.py", "src/calc/__init__.py", "tests/test_ops.py", "setup.py"]
    issue = ("mean() is wrong:\n```\nTraceback (most recent call last):\n"
             '  File "/home/me/.venv/lib/python3.11/site-packages/calc/ops.py", line 16, in mean\n'
             '  File "/home/me/.venv/lib/python3.11/site-packages/calc/ops.py", line 11, in add_all\n'
             '  File "/usr/lib/python3.11/json/__init__.py", line 2, in dumps\n'
             '  File "tests/test_ops.py", line 3, in test_mean\n```\n')  # fmt: skip
    found = issue_frames(issue, paths, Reader(tmp_path).text)
    assert [(p, name) for p, name, _ in found] == [
        ("src/calc/ops.py", "add_all"),  # innermost first
        ("src/calc/ops.py", "mean"),
    ]  # json/__init__.py shares one part only; test files are not suspects


def test_the_repositorys_own_test_files_for_a_suspect_file(tmp_path: Path) -> None:
    files = {
        "src/calc/ops.py": OPS,
        "tests/test_ops.py": "from calc.ops import add\n",
        "tests/test_report.py": "from calc.report import title\n",
        "tests/test_misc.py": "import calc.ops\n",
        "tests/conftest.py": "from calc.ops import add\n",
        "tests/helpers.py": "from calc.ops import add\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    found = related_test_files(["src/calc/ops.py"], list(files), Reader(tmp_path).text)
    assert found == ["tests/test_ops.py", "tests/test_misc.py"]  # named after it, then importing
    assert related_test_files(["src/calc/ops.py"], list(files), Reader(tmp_path).text, 1) == [
        "tests/test_ops.py"
    ]
