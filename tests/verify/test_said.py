"""What a prompt carries of a failed test run (``said``): the failure, without the lines
that say nothing about it — pytest's session header, node's own frames and banner."""

from __future__ import annotations

import pytest

from patchwright.verify.tools import exited, said

NODE_FAILURE = """\
node:internal/assert/utils:281
    throw err;
    ^

AssertionError [ERR_ASSERTION]: console.assert failed
    at console.assert (/tmp/patchwright-task-i_mks1qy/main.test.js:5:10)
    at testStringXor (/tmp/patchwright-task-i_mks1qy/main.test.js:9:11)
    at Object.<anonymous> (/tmp/patchwright-task-i_mks1qy/main.test.js:14:1)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49 {
  generatedMessage: false,
  code: 'ERR_ASSERTION',
  actual: false,
  expected: true,
  operator: '=='
}

Node.js v20.20.2
"""


def test_a_failed_node_script_keeps_its_error_and_its_own_frames_only() -> None:
    assert said(NODE_FAILURE).strip() == (
        "AssertionError [ERR_ASSERTION]: console.assert failed\n"
        "    at console.assert (/tmp/patchwright-task-i_mks1qy/main.test.js:5:10)\n"
        "    at testStringXor (/tmp/patchwright-task-i_mks1qy/main.test.js:9:11)\n"
        "    at Object.<anonymous> (/tmp/patchwright-task-i_mks1qy/main.test.js:14:1) {\n"
        "  generatedMessage: false,\n"
        "  code: 'ERR_ASSERTION',\n"
        "  actual: false,\n"
        "  expected: true,\n"
        "  operator: '=='\n"
        "}"
    )


V8_FATAL = """\
#
# Fatal error in , line 0
# Fatal JavaScript invalid size error 169220804 (see crbug.com/1201626)
#
#
#
#FailureMessage Object: 0x7fff4c2a9620
----- Native stack trace -----

 1: 0xd32b41  [node]
 2: 0x214a881 V8_Fatal(char const*, ...) [node]
 6: 0x15129a6 v8::internal::Runtime_GrowArrayElements(int, unsigned long*, v8::internal::Isolate*) [node]
 7: 0x7f883feda476
"""


def test_v8s_fatal_error_keeps_its_message_and_drops_its_banner_and_native_stack() -> None:
    assert [x for x in said(V8_FATAL).splitlines() if x.strip()] == [
        "# Fatal error in , line 0",
        "# Fatal JavaScript invalid size error 169220804 (see crbug.com/1201626)",
    ]


def test_pytests_session_header_goes_and_its_failure_stays() -> None:
    output = (
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.11.7, pytest-8.3.4, pluggy-1.5.0\n"
        "rootdir: /tmp/repo\n"
        "collected 1 item\n\n"
        "test_calc.py F\n"
        "E   assert 1 == 2\n"
    )
    assert said(output) == "collected 1 item\n\ntest_calc.py F\nE   assert 1 == 2"


def test_a_line_that_only_mentions_node_internals_in_its_message_stays() -> None:
    message = "Error: cannot find node:internal/foo in the bundle"
    assert said(message) == message


@pytest.mark.parametrize(
    ("command", "code", "says"),
    [
        ("timeout 20 node main.test.js", 124, "its `timeout` stopped it after 20s"),
        ("cd pkg && timeout -s KILL 5m go test ./...", 137, "its `timeout` stopped it after 5m"),
        ("timeout --kill-after=5 1.5 cargo test", 124, "its `timeout` stopped it after 1.5s"),
    ],
)
def test_a_run_its_own_timeout_stopped_says_the_code_did_not_finish(
    command: str, code: int, says: str
) -> None:
    assert exited(command, code) == (
        f"exited {code}: {says} — the code did not finish (a loop that never ends?)"
    )


@pytest.mark.parametrize(
    ("command", "code"),
    [("timeout 20 node main.test.js", 1), ("node main.test.js", 124), ("timeouts 3 x", 124)],
)
def test_any_other_exit_is_just_its_code(command: str, code: int) -> None:
    assert exited(command, code) == f"exited {code}"


CARGO_TIMEOUT = """\
   Compiling humanevalfix v0.1.0 (/tmp/patchwright-task-ezehehbq)
warning: unused imports: `HashMap`, `HashSet`, `ascii::AsciiExt`, `max`
 --> src/lib.rs:3:11
  |
3 | use std::{slice::Iter, cmp::{max, self}, collections::{HashSet, HashMap}, ascii::AsciiExt};
  |           ^^^^^^^^^^^        ^^^
  |
  = note: `#[warn(unused_imports)]` (part of `#[warn(unused)]`) on by default

warning: use of deprecated trait `std::ascii::AsciiExt`: use inherent methods instead
 --> src/lib.rs:3:108
  |
3 | use std::{slice::Iter, cmp::{max, self}, collections::{HashSet, HashMap}, ascii::AsciiExt};
  |                                                                           ^^^^^^^^
  |
  = note: `#[warn(deprecated)]` on by default

warning: unused variable: `count`
  --> src/lib.rs:14:13
   |
14 |     let mut count: i32 = 0;
   |             ^^^^^ help: if this is intentional, prefix it with an underscore: `_count`

warning: `humanevalfix` (lib test) generated 3 warnings (run `cargo fix --lib -p humanevalfix --tests` to apply 2 suggestions)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.15s
     Running unittests src/lib.rs (target/debug/deps/humanevalfix-1c80ca477183bcb2)

running 1 test
test tests::test_is_simple_power has been running for over 60 seconds
"""


def test_rustc_warnings_about_the_imports_are_dropped_and_the_rest_kept() -> None:
    kept = said(CARGO_TIMEOUT)
    assert "unused imports" not in kept and "deprecated" not in kept
    assert "src/lib.rs:3" not in kept and "generated 3 warnings" not in kept
    assert "warning: unused variable: `count`\n  --> src/lib.rs:14:13" in kept
    assert "help: if this is intentional" in kept
    assert kept.rstrip().endswith(
        "test tests::test_is_simple_power has been running for over 60 seconds"
    )
    assert "Compiling humanevalfix" in kept and "running 1 test" in kept


def test_a_warning_block_ends_at_the_first_line_that_does_not_carry_it_on() -> None:
    text = "warning: unused import: `std::fmt`\n --> src/lib.rs:1:5\nerror[E0308]: mismatched types\n --> src/lib.rs:9:5"
    assert said(text) == "error[E0308]: mismatched types\n --> src/lib.rs:9:5"
