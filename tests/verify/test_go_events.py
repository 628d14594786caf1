"""``go test -json`` read into per-test outcomes, from the event stream go writes: each test
with its file and line, a failure with its message and its file references relative to the
repository, a test the binary never finished, a package that did not build."""

from __future__ import annotations

import json
from pathlib import Path

from patchwright.verify.runners.gotest import read_events
from patchwright.verify.testmodel import TestRun

MOD = "example.com/calc"
TESTS = (
    'package calc\n\nimport "testing"\n\n'
    'func TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("bad")\n\t}\n}\n\n'
    "func TestSub(t *testing.T) {}\n\nfunc TestSkipped(t *testing.T) { t.Skip() }\n"
)


def events(*rows: dict[str, str]) -> str:
    return "\n".join(json.dumps(r) for r in rows) + "\n"


def module(tmp_path: Path) -> Path:
    (tmp_path / "go.mod").write_text(f"module {MOD}\n\ngo 1.19\n")
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "calc_test.go").write_text(TESTS)
    return tmp_path


def read(root: Path, stdout: str, stderr: str = "") -> TestRun:
    run = TestRun("go test -json ./...", 1, stdout)
    read_events(run, stdout, stderr, root)
    return run


def test_each_test_gets_its_outcome_file_and_line_and_a_failure_its_message(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    run = read(root, events(
        {"Action": "run", "Package": pkg, "Test": "TestAdd"},
        {"Action": "output", "Package": pkg, "Test": "TestAdd", "Output": "=== RUN   TestAdd\n"},
        {"Action": "output", "Package": pkg, "Test": "TestAdd",
         "Output": f"    {root}/calc/calc_test.go:7: bad\n"},
        {"Action": "output", "Package": pkg, "Test": "TestAdd", "Output": "--- FAIL: TestAdd (0.00s)\n"},
        {"Action": "fail", "Package": pkg, "Test": "TestAdd"},
        {"Action": "pass", "Package": pkg, "Test": "TestSub"},
        {"Action": "skip", "Package": pkg, "Test": "TestSkipped"},
        {"Action": "fail", "Package": pkg},
    ))  # fmt: skip
    cases = {c.id: (c.outcome, c.path, c.line) for c in run.cases.values()}
    assert cases == {
        "calc/calc_test.go::TestAdd": ("failed", "calc/calc_test.go", 5),
        "calc/calc_test.go::TestSub": ("passed", "calc/calc_test.go", 11),
        "calc/calc_test.go::TestSkipped": ("skipped", "calc/calc_test.go", 13),
    }
    failed = run.cases["calc/calc_test.go::TestAdd"]
    assert "calc/calc_test.go:7: bad" in failed.message + failed.detail
    assert str(root) not in failed.message + failed.detail  # references made relative
    assert run.per_test


def test_a_test_the_binary_never_finished_is_an_error_that_says_so(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    run = read(root, events(
        {"Action": "run", "Package": pkg, "Test": "TestAdd"},
        {"Action": "fail", "Package": pkg},
    ))  # fmt: skip
    case = run.cases["calc/calc_test.go::TestAdd"]
    assert case.outcome == "error"
    assert case.message == "the test binary stopped before this test finished"
    assert run.cases["calc::[package]"].outcome == "error"  # and the package failed with it


def test_a_package_that_does_not_build_is_one_build_case_naming_the_error(tmp_path: Path) -> None:
    root = module(tmp_path)
    stderr = f"# {MOD}/calc\ncalc/calc.go:4:9: undefined: Sum\ncalc/calc.go:5:2: undefined: Sum\n"
    run = read(root, events({"Action": "output", "Package": f"{MOD}/calc", "Output": "FAIL\t"
                             f"{MOD}/calc [build failed]\n"},
                            {"Action": "fail", "Package": f"{MOD}/calc"}), stderr)  # fmt: skip
    [case] = run.cases.values()
    assert (case.id, case.outcome) == ("calc::[build]", "error")
    assert case.message == "build failed: calc/calc.go:4: undefined: Sum"  # go's file:line
    assert case.detail == "calc/calc.go:5: undefined: Sum"  # the first error once, not twice
