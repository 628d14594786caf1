"""The benchmark server's usage log counts every completion for the task that asked for it,
a completion its reader stopped reading too (patchwright ends a reply that starts copying
the tests; Aider is killed at its time limit): its ``end`` is logged once it sits unread,
not when the garbage collector closes it after the task has been counted."""

from __future__ import annotations

import importlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

TASKS = Path(__file__).resolve().parents[2] / "benchmarks" / "tasks"
END = 0  # the end token of the fake vocabulary


def bench_module(name: str) -> ModuleType:
    sys.path.insert(0, str(TASKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(TASKS))


server_main = bench_module("server_main")
llama_server = bench_module("llama_server")


def tokens(n: int) -> Iterator[int]:
    yield from range(1, n + 1)
    yield END


@pytest.fixture
def log(tmp_path: Path) -> Iterator[tuple[object, object]]:
    path = tmp_path / "run.usage.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        yield server_main.Ledger(handle, idle_s=1.0), llama_server.UsageLog(path)


def stream(ledger: object, n: int, prompt: int = 100) -> Iterator[int]:
    call = ledger.begin(prompt, 40, 0.0)  # type: ignore[attr-defined]
    return server_main.counted(ledger, tokens(n), call, lambda t: t == END)


def test_a_completion_read_to_its_end_counts_its_tokens_but_not_the_end_token(log):
    ledger, usage = log
    assert list(stream(ledger, 5)) == [1, 2, 3, 4, 5, END]
    usage.read()
    [call] = usage.calls
    assert (call.prompt_tokens, call.reused_tokens, call.completion_tokens) == (100, 40, 5)
    assert usage.open_calls == set()


def test_a_completion_left_unread_is_counted_once_it_sits_idle_before_it_is_closed(log):
    ledger, usage = log
    reply = stream(ledger, 50)
    assert [next(reply), next(reply), next(reply)] == [1, 2, 3]  # the reader stops here
    ledger.sweep(time.time())  # not idle long enough yet
    usage.read()
    assert usage.calls == [] and len(usage.open_calls) == 1
    ledger.sweep(time.time() + 2.0)
    usage.read()
    [call] = usage.calls
    assert call.completion_tokens == 3
    assert usage.open_calls == set()
    reply.close()  # the garbage collector, later: a `closed` line that counts nothing more
    usage.read()
    assert [c.completion_tokens for c in usage.calls] == [3]


def test_a_completion_read_on_after_it_was_taken_for_abandoned_counts_to_its_end(log):
    ledger, usage = log
    reply = stream(ledger, 6)
    assert next(reply) == 1
    ledger.sweep(time.time() + 2.0)
    usage.read()
    assert [c.completion_tokens for c in usage.calls] == [1]
    assert list(reply) == [2, 3, 4, 5, 6, END]
    usage.read()
    assert [c.completion_tokens for c in usage.calls] == [6]  # replaced, not added
    assert usage.open_calls == set()


def test_each_task_gets_the_completions_that_began_while_it_ran(log):
    ledger, usage = log
    began = time.time()
    first = stream(ledger, 4)
    next(first)  # the first task's reply, cut short and never closed
    ledger.sweep(time.time() + 2.0)
    list(stream(ledger, 2, prompt=30))  # the same task's next call
    ended = time.time()
    counted = llama_server.usage_figures(usage.between(began, ended))
    assert counted["calls"] == 2
    assert counted["completion_tokens"] == 1 + 2
    assert counted["prompt_tokens"] == 100 + 30
