"""How far the failing test got: a check broken that passed, or checks passed that failed."""

from __future__ import annotations

from patchwright.agent.check_moves import check_moved, stopped_later


def report(line: int, code: str, *tests: str) -> str:
    failed = "".join(f"- failed: {t}\n    panicked at src/tests.rs:{line}\n" for t in tests)
    return (f"`cargo test` still fails:\n{failed}Where the test run points in the tests:\n"
            f"- src/tests.rs:{line}: `{code}`\n")  # fmt: skip


BEFORE = report(8, "assert_eq!(prime_fib(4), 13);", "src/lib.rs::tests::test_prime_fib")


def test_a_test_that_now_stops_earlier_broke_a_check_the_code_passed() -> None:
    after = report(5, "assert_eq!(prime_fib(1), 2);", "src/lib.rs::tests::test_prime_fib")
    assert check_moved(BEFORE, after) == (
        "Your change broke `assert_eq!(prime_fib(1), 2);` (src/tests.rs:5): the code as it was "
        "passed that check (the test stopped at line 8 before the change). Keep what the code "
        "did for it."
    )


def test_a_test_that_now_stops_later_got_further() -> None:
    after = report(11, "assert_eq!(prime_fib(6), 233);", "src/lib.rs::tests::test_prime_fib")
    assert check_moved(BEFORE, after).startswith(
        "Your change got further: the checks above src/tests.rs:11 now pass (before the change "
        "the test stopped at line 8)."
    )


def test_the_same_place_another_test_or_several_say_nothing() -> None:
    same = report(8, "assert_eq!(prime_fib(4), 13);", "src/lib.rs::tests::test_prime_fib")
    other = report(5, "assert_eq!(fib(1), 1);", "src/lib.rs::tests::test_fib")
    two = report(5, "assert_eq!(prime_fib(1), 2);", "a::t", "b::t")
    assert [check_moved(BEFORE, r) for r in (same, other, two)] == ["", "", ""]
    assert check_moved("", BEFORE) == ""


def test_a_go_or_javascript_test_goes_on_past_a_failed_check_so_its_moves_say_nothing() -> None:
    for name in ("calc_test.go", "main.test.js"):
        other = BEFORE.replace("src/tests.rs", name)
        assert check_moved(other, other.replace(f"{name}:8", f"{name}:5")) == ""


def test_the_later_line_a_test_got_to_is_its_progress() -> None:
    later = report(11, "assert_eq!(prime_fib(6), 233);", "src/lib.rs::tests::test_prime_fib")
    earlier = report(5, "assert_eq!(prime_fib(1), 2);", "src/lib.rs::tests::test_prime_fib")
    assert stopped_later(BEFORE, later) == 11
    assert [stopped_later(BEFORE, r) for r in (earlier, BEFORE, "")] == [None, None, None]
