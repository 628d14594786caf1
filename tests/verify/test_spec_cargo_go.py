"""``cargo test`` and ``go test`` read into per-test cases, specified from their output as the
tools print it: the plan's command (what is added so that each test reports), the reader
(each test by the file it lives in, its outcome, the panic or assertion as its message; a
crate or package that does not build as one ``[build]`` error), and the text a person reads
(cargo's JSON build lines dropped, go's events turned back into ``go test -v`` output)."""

from __future__ import annotations

import json
from pathlib import Path

from patchwright.sandbox import ExecResult
from patchwright.verify.runners import plan_for
from patchwright.verify.runners.gotest import read_events
from patchwright.verify.testmodel import TestRun

LIB = """pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }

    #[test]
    fn subtracts() {
        assert_eq!(add(5, 3), 2);
    }
}
"""


def crate(root: Path, name: str = "calc") -> Path:
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "Cargo.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\n')
    (root / "src" / "lib.rs").write_text(LIB)
    (root / "tests" / "it.rs").write_text("#[test]\nfn works() {}\n\n#[test]\nfn later() {}\n")
    return root


def artifact(root: Path, src: str, exe: str) -> str:
    return json.dumps({"reason": "compiler-artifact", "target": {"src_path": f"{root}/{src}"},
                       "executable": f"{root}/target/debug/deps/{exe}"})  # fmt: skip


def cargo_output(root: Path) -> str:
    return "\n".join([
        artifact(root, "src/lib.rs", "calc-1a2b"),
        artifact(root, "tests/it.rs", "it-3c4d"),
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.51s",
        "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
        "", "running 2 tests",
        "test tests::adds ... ok",
        "test tests::subtracts ... FAILED",
        "", "failures:", "", "---- tests::subtracts stdout ----", "",
        f"thread 'tests::subtracts' panicked at {root}/src/lib.rs:16:9:",
        "assertion `left == right` failed", "  left: 8", " right: 2",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "", "", "failures:", "    tests::subtracts", "",
        "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out",
        "",
        "     Running tests/it.rs (target/debug/deps/it-3c4d)",
        "", "running 2 tests",
        "test works ... ok",
        "test later ... ignored",
        "", "test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out",
        "", "   Doc-tests calc", "", "running 1 test",
        "test src/lib.rs - add (line 1) ... ok",
        "", "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out",
        "error: 1 target failed:", "    `--lib`",
    ])  # fmt: skip


def cargo_read(root: Path, stdout: str, cmd: str = "cargo test", stderr: str = "") -> TestRun:
    plan = plan_for(root, cmd, root)
    run = TestRun(cmd, 101, stdout)
    plan.read(run, ExecResult(101, stdout, stderr))
    return run


# -- cargo ----------------------------------------------------------------------------------


def test_cargo_test_is_asked_to_run_every_target_and_name_its_executables(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "cargo test", tmp_path)
    assert plan.runner == "cargo"
    assert plan.command == (
        "cargo test --no-fail-fast --message-format=json-render-diagnostics 2>&1"
    )
    mine = plan_for(tmp_path, "cargo test --no-fail-fast --message-format=short -p a", tmp_path)
    assert mine.command == "cargo test --no-fail-fast --message-format=short -p a 2>&1"


def test_each_cargo_test_is_named_by_its_file_with_its_outcome_and_line(tmp_path: Path) -> None:
    root = crate(tmp_path)
    run = cargo_read(root, cargo_output(root))
    assert run.per_test
    got = {c.id: (c.outcome, c.path, c.line, c.inline) for c in run.cases.values()}
    assert got == {
        "src/lib.rs::tests::adds": ("passed", "src/lib.rs", 10, True),
        "src/lib.rs::tests::subtracts": ("failed", "src/lib.rs", 15, True),
        "tests/it.rs::works": ("passed", "tests/it.rs", 2, False),
        "tests/it.rs::later": ("skipped", "tests/it.rs", 5, False),
        "src/lib.rs::add (doc test)": ("passed", "src/lib.rs", 1, True),
    }


def test_a_failing_cargo_test_says_its_assertion_and_where_it_panicked(tmp_path: Path) -> None:
    root = crate(tmp_path)
    failed = cargo_read(root, cargo_output(root)).cases["src/lib.rs::tests::subtracts"]
    assert failed.message == "assertion `left == right` failed"
    assert [x.strip() for x in failed.detail.splitlines()] == [
        "panicked at src/lib.rs:16", "assertion `left == right` failed", "left: 8", "right: 2",
    ]  # fmt: skip
    assert str(root) not in failed.detail and "RUST_BACKTRACE" not in failed.detail


def test_what_a_failing_rust_test_printed_follows_its_panic_not_before_it(
    tmp_path: Path,
) -> None:
    root = crate(tmp_path)
    out = "\n".join([
        "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
        "running 1 test", "test tests::adds ... FAILED", "failures:",
        "---- tests::adds stdout ----", *(f"step {i}" for i in range(20)), "",
        "thread 'tests::adds' (18295) panicked at src/lib.rs:11:9:",
        "assertion `left == right` failed", "  left: 0", " right: 4",
        "test result: FAILED. 0 passed; 1 failed",
    ])  # fmt: skip
    case = cargo_read(root, out).cases["src/lib.rs::tests::adds"]
    assert case.message == "assertion `left == right` failed"
    assert [x.strip() for x in case.detail.splitlines()] == [
        "panicked at src/lib.rs:11", "assertion `left == right` failed", "left: 0", "right: 4",
        "the test printed before it failed (the last 3 of 20 lines):",
        "step 17", "step 18", "step 19",
    ]  # fmt: skip


def test_an_older_rusts_one_line_panic_gives_the_message_and_place(tmp_path: Path) -> None:
    root = crate(tmp_path)
    out = "\n".join([
        "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
        "running 1 test", "test tests::adds ... FAILED", "failures:",
        "---- tests::adds stdout ----",
        "thread 'tests::adds' panicked at 'explicit panic', src/lib.rs:11:9",
        "test result: FAILED. 0 passed; 1 failed",
    ])  # fmt: skip
    case = cargo_read(root, out).cases["src/lib.rs::tests::adds"]
    assert case.message == "explicit panic"
    assert case.detail == "panicked at src/lib.rs:11"


ALLOC = "/rustc/5980761/library/alloc/src"


def test_a_test_process_that_runs_out_of_memory_fails_the_test_it_was_running(
    tmp_path: Path,
) -> None:
    """HumanEvalFix Rust-25: a loop that pushed forever aborted the test process before its
    result line; the run named no failing test and the repair showed library frames."""
    root = crate(tmp_path)
    out = "\n".join([
        "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
        "", "running 2 tests", "test tests::adds ... ok",
        "memory allocation of 4294967296 bytes failed", "stack backtrace:",
        "   0: std::alloc::rust_oom", f"             at {ALLOC}/alloc.rs:424:5",
        "   8: alloc::vec::Vec<T,A>::push", f"             at {ALLOC}/vec/mod.rs:992:22",
        "   9: calc::add", "             at ./src/lib.rs:2:9",
        "  10: calc::tests::subtracts", "             at ./src/lib.rs:16:20",
        "  11: calc::tests::subtracts::{{closure}}", "             at ./src/lib.rs:15:19",
        "  12: core::ops::function::FnOnce::call_once",
        f"             at {ALLOC}/../../core/src/ops/function.rs:250:5",
        "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.",
        "error: test failed, to rerun pass `--lib`",
        "Caused by:", "  process didn't exit successfully: `target/debug/deps/calc-1a2b` "
        "(signal: 6, SIGABRT: process abort signal)",
    ])  # fmt: skip
    run = cargo_read(root, out)
    failed = run.cases["src/lib.rs::tests::subtracts"]
    assert (failed.outcome, failed.line) == ("failed", 15)
    assert (
        failed.message == "memory allocation of 4294967296 bytes failed (the test process aborted)"
    )
    assert failed.detail.splitlines()[1:] == [
        "in calc::add at src/lib.rs:2", "in calc::tests::subtracts at src/lib.rs:16",
    ]  # fmt: skip
    assert run.cases["src/lib.rs::tests::adds"].outcome == "passed"


def test_a_stack_overflow_fails_the_test_its_thread_names(tmp_path: Path) -> None:
    root = crate(tmp_path)
    out = "\n".join([
        "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
        "running 2 tests", "",
        "thread 'tests::adds' has overflowed its stack", "fatal runtime error: stack overflow",
        "error: test failed, to rerun pass `--lib`",
    ])  # fmt: skip
    case = cargo_read(root, out).cases["src/lib.rs::tests::adds"]
    assert case.outcome == "failed"
    assert case.message == (
        "thread 'tests::adds' has overflowed its stack; fatal runtime error: stack overflow "
        "(the test process aborted)"
    )


def test_a_test_that_should_panic_is_named_without_the_suffix(tmp_path: Path) -> None:
    root = crate(tmp_path)
    out = "\n".join(["     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)",
                     "running 1 test", "test tests::adds - should panic ... ok"])  # fmt: skip
    assert list(cargo_read(root, out).cases) == ["src/lib.rs::tests::adds"]


def test_a_crate_that_does_not_compile_is_one_build_error_with_the_first_compiler_error(
    tmp_path: Path,
) -> None:
    root = crate(tmp_path / "ws")
    crate(root / "crates" / "parser", name="parser")
    out = "\n".join([
        "error[E0425]: cannot find value `y` in this scope",
        f" --> {root}/crates/parser/src/lib.rs:2:5",
        "  |", "2 |     y", "  |     ^ not found in this scope", "",
        "error: could not compile `parser` (lib test) due to 1 previous error",
        "error: could not compile `parser` (lib) due to 1 previous error",
    ])  # fmt: skip
    run = cargo_read(root, out)
    first = run.cases["crates/parser::[build]"]
    assert (first.outcome, first.path) == ("error", "crates/parser")
    assert first.message == (
        "build failed: error[E0425]: cannot find value `y` in this scope "
        "(crates/parser/src/lib.rs:2)"
    )
    assert "cannot find value" not in first.detail  # the message says it; the detail goes on
    assert run.failing == {"crates/parser::[build]", "crates/parser::[build] #2"}
    assert run.cases["crates/parser::[build] #2"].message == "build failed"


def test_a_cargo_test_inside_a_shell_line_is_read_from_stdout_and_stderr(tmp_path: Path) -> None:
    root = crate(tmp_path)
    cmd = "cd . && cargo test"
    plan = plan_for(root, cmd, root)
    assert (plan.runner, plan.command) == ("cargo", cmd)  # its options cannot be added
    stdout = "running 1 test\ntest tests::adds ... ok\n"
    stderr = "     Running unittests src/lib.rs (target/debug/deps/calc-1a2b)\n"
    run = cargo_read(root, stdout, cmd=cmd, stderr=stderr)
    assert [c.id for c in run.cases.values()] == ["tests::adds"]  # no Running line before it


def test_what_a_person_reads_of_cargo_leaves_out_its_json_build_lines(tmp_path: Path) -> None:
    root = crate(tmp_path)
    plan = plan_for(root, "cargo test", root)
    assert plan.output is not None
    text = plan.output(ExecResult(101, cargo_output(root), ""))
    assert '{"reason"' not in text
    assert text.splitlines()[0].strip().startswith("Finished `test` profile")


# -- go -------------------------------------------------------------------------------------

MOD = "example.com/calc"
GO_TESTS = (
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n'
    '\tt.Run("negative", func(t *testing.T) {})\n}\n\nfunc TestEqual(t *testing.T) {}\n'
)


def module(root: Path) -> Path:
    (root / "go.mod").write_text(f"module {MOD}\n\ngo 1.21\n")
    (root / "calc").mkdir(parents=True, exist_ok=True)
    (root / "calc" / "calc_test.go").write_text(GO_TESTS)
    return root


def events(*rows: dict[str, str]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def go_read(root: Path, stdout: str, stderr: str = "") -> TestRun:
    run = TestRun("go test -json ./...", 1, stdout)
    read_events(run, stdout, stderr, root)
    return run


def test_go_test_is_asked_for_json_events_once(tmp_path: Path) -> None:
    assert plan_for(tmp_path, "go test ./...", tmp_path).command == "go test -json ./..."
    assert plan_for(tmp_path, "go test -json -run X ./...", tmp_path).command == (
        "go test -json -run X ./..."
    )
    wrapped = plan_for(tmp_path, "GOFLAGS=-mod=mod timeout 60 go test -v ./calc", tmp_path)
    assert wrapped.runner == "go"
    assert wrapped.command == "GOFLAGS=-mod=mod timeout 60 go test -json -v ./calc"
    assert plan_for(tmp_path, "make test", tmp_path).runner == ""  # judged by its exit code


def test_a_subtest_is_named_under_its_parent_in_the_parents_file(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    run = go_read(root, events(
        {"Action": "pass", "Package": pkg, "Test": "TestAdd/negative"},
        {"Action": "pass", "Package": pkg, "Test": "TestAdd"},
        {"Action": "pass", "Package": pkg},
    ))  # fmt: skip
    assert {c.id: (c.path, c.line) for c in run.cases.values()} == {
        "calc/calc_test.go::TestAdd/negative": ("calc/calc_test.go", 5),
        "calc/calc_test.go::TestAdd": ("calc/calc_test.go", 5),
    }


def test_a_testify_failure_reads_as_the_comparison_it_made(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    said = ["    calc_test.go:10: \n", "        \tError Trace:\tcalc_test.go:10\n",
            "        \tError:      \tNot equal: \n", "        \t            \texpected: 5\n",
            "        \t            \tactual  : -1\n", "        \tTest:       \tTestEqual\n"]  # fmt: skip
    rows = [{"Action": "output", "Package": pkg, "Test": "TestEqual", "Output": x} for x in said]
    run = go_read(root, events(*rows, {"Action": "fail", "Package": pkg, "Test": "TestEqual"}))
    case = run.cases["calc/calc_test.go::TestEqual"]
    assert case.message == "Not equal: expected: 5 actual : -1"
    assert "calc/calc_test.go:10" in case.detail  # go's package-relative file, made the repo's


def test_what_a_failing_go_test_printed_follows_its_error_and_is_not_its_message(
    tmp_path: Path,
) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    said = ["=== RUN   TestEqual\n", *(f"step {i}\n" for i in range(5)),
            "    calc_test.go:9: Add(2, 2) = 0, want 4\n", "--- FAIL: TestEqual (0.00s)\n"]  # fmt: skip
    rows = [{"Action": "output", "Package": pkg, "Test": "TestEqual", "Output": x} for x in said]
    run = go_read(root, events(*rows, {"Action": "fail", "Package": pkg, "Test": "TestEqual"}))
    case = run.cases["calc/calc_test.go::TestEqual"]
    assert case.message == "Add(2, 2) = 0, want 4"
    assert case.detail.splitlines() == [
        "calc/calc_test.go:9: Add(2, 2) = 0, want 4",
        "the test printed before it failed (the last 3 of 5 lines):",
        "step 2", "step 3", "step 4",
    ]  # fmt: skip


def test_each_testify_assertion_is_one_line_without_its_diff(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    diff = ["Diff:", "--- Expected", "+++ Actual", "@@ -1,2 +1,2 @@", "-([]int) (len=1) {", " }"]
    said = [
        *(f"    calc_test.go:{n}: \n" + "".join(f"        \t            \t{x}\n" for x in (
            "Error:      \tNot equal: ", f"expected: []int{{{n}}}", "actual  : []int{}", "", *diff
        )) + "        \tTest:       \tTestEqual\n" for n in (10, 11))
    ]  # fmt: skip
    rows = [{"Action": "output", "Package": pkg, "Test": "TestEqual", "Output": x} for x in said]
    run = go_read(root, events(*rows, {"Action": "fail", "Package": pkg, "Test": "TestEqual"}))
    case = run.cases["calc/calc_test.go::TestEqual"]
    assert case.detail.splitlines() == [
        "calc/calc_test.go:10: Not equal: expected: []int{10} actual  : []int{}",
        "calc/calc_test.go:11: Not equal: expected: []int{11} actual  : []int{}",
    ]


def test_a_package_that_fails_outside_its_tests_is_one_package_error(tmp_path: Path) -> None:
    root = module(tmp_path)
    pkg = f"{MOD}/calc"
    run = go_read(root, events(
        {"Action": "output", "Package": pkg, "Output": "panic: init failed\n"},
        {"Action": "output", "Package": pkg, "Output": "FAIL\texample.com/calc\t0.01s\n"},
        {"Action": "fail", "Package": pkg},
    ))  # fmt: skip
    [case] = run.cases.values()
    assert (case.id, case.outcome, case.path) == ("calc::[package]", "error", "calc")
    assert case.message == "panic: init failed"


def test_a_compile_error_of_a_package_go_reported_no_event_for_is_a_build_error(
    tmp_path: Path,
) -> None:
    root = module(tmp_path)
    (root / "util").mkdir()
    stderr = f"# {MOD}/util\nutil/util.go:3:2: undefined: missing\n"
    run = go_read(root, events({"Action": "pass", "Package": f"{MOD}/calc"}), stderr)
    [case] = run.cases.values()
    assert (case.id, case.outcome) == ("util::[build]", "error")
    assert case.message == "build failed: util/util.go:3: undefined: missing"
    assert run.per_test


def test_a_package_outside_the_module_keeps_its_import_path_and_gopath_mode_maps_to_a_folder(
    tmp_path: Path,
) -> None:
    root = module(tmp_path)
    run = go_read(root, events(
        {"Action": "pass", "Package": "other.org/x", "Test": "TestX"},
        {"Action": "pass", "Package": f"_{root}/calc", "Test": "TestEqual"},
    ))  # fmt: skip
    assert set(run.cases) == {"other.org/x::TestX", "calc/calc_test.go::TestEqual"}


def test_what_a_person_reads_of_go_is_the_output_the_events_carry(tmp_path: Path) -> None:
    plan = plan_for(tmp_path, "go test ./...", tmp_path)
    assert plan.output is not None
    stdout = (
        events(
            {"Action": "run", "Package": "p", "Test": "TestA"},
            {"Action": "output", "Package": "p", "Test": "TestA", "Output": "=== RUN   TestA\n"},
            {"Action": "output", "Package": "p", "Test": "TestA", "Output": "--- PASS: TestA\n"},
        )
        + "not an event\n"
    )
    text = plan.output(ExecResult(0, stdout, "go: downloading x\n"))
    assert text == "=== RUN   TestA\n--- PASS: TestA\nnot an event\n\ngo: downloading x"
