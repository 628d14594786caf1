"""The live status line of ``patchwright run``: phases from events, tokens/s of the reply
being generated."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from patchwright.events import ModelRequest, ToolCall
from patchwright.modes.run import progress as progress_module
from patchwright.modes.run.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", fake)
    return fake


def line(progress: Progress) -> str:
    return progress._line()


def test_the_rate_is_of_the_reply_being_generated_not_of_the_run(clock: Clock) -> None:
    p = Progress(Console(file=io.StringIO()), enabled=False)
    p.on_event(ModelRequest(phase="coder", messages=2))
    for _ in range(10):  # a slow first reply: 10 tokens in 10 s
        p.on_token("x")
        clock.now += 1.0
    assert "1.0 tok/s" in line(p)
    clock.now += 60.0  # gates, then the next request
    p.on_event(ModelRequest(phase="coder", messages=4))
    assert "tok/s" not in line(p), "no rate until the new reply's first token"
    for _ in range(20):  # a fast second reply: 20 tokens in 2 s
        p.on_token("x")
        clock.now += 0.1
    assert "10.0 tok/s" in line(p)
    assert "30 tokens" in line(p), "the token count is the run's"


def test_a_tool_call_names_the_role_and_the_tool(clock: Clock) -> None:
    p = Progress(Console(file=io.StringIO()), enabled=False)
    p.on_event(ModelRequest(phase="planner", messages=1))
    assert line(p).startswith("[bold]planner thinking[/]")
    p.on_event(ToolCall(role="coder", tool="read_file", arguments={}, ok=True, observation=""))
    assert line(p).startswith("[bold]coder: read_file[/]")
