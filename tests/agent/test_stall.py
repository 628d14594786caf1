"""Stall detection: one intervention, then a stop — and a model that answers the intervention
with the very reply it was warned about is stopped at once, not after three more."""

from __future__ import annotations

from patchwright.agent.stall import StallWatch
from patchwright.agent.tools.base import Observation
from patchwright.llm import ToolCall

PROSE = "I will delete the file test_solution.py and then edit solution.py."


def steps(watch: StallWatch, replies: list[str]) -> list[str]:
    """The verdict after each reply that called no tool."""
    return [watch.judge(watch.step(False, without_calls=text)) for text in replies]


def test_the_same_prose_three_times_earns_one_intervention() -> None:
    watch = StallWatch()
    assert steps(watch, [PROSE] * 3) == ["ok", "ok", "intervene"]
    assert watch.reason == "the same reply without a tool call 3 times in a row"


def test_the_warned_about_reply_right_after_the_intervention_stops_the_run() -> None:
    watch = StallWatch()
    assert steps(watch, [PROSE] * 4) == ["ok", "ok", "intervene", "stop"]
    assert watch.reason == "the same reply without a tool call 4 times in a row"


def test_empty_replies_after_the_intervention_stop_at_the_first() -> None:
    watch = StallWatch()
    assert steps(watch, [""] * 4) == ["ok", "ok", "intervene", "stop"]
    assert watch.reason == "empty replies 4 times in a row"


def test_a_new_reply_after_the_intervention_starts_the_count_again() -> None:
    watch = StallWatch()
    other = "Let me read solution.py first."
    assert steps(watch, [PROSE] * 3 + [other] * 3) == ["ok", "ok", "intervene", "ok", "ok", "stop"]
    assert watch.reason == "the same reply without a tool call 3 times in a row"


def test_a_tool_call_between_replies_breaks_the_run_of_same_replies() -> None:
    watch = StallWatch()
    verdicts = steps(watch, [PROSE, PROSE])
    verdicts.append(watch.judge(watch.step(True)))  # a step that called a tool and read a file
    verdicts += steps(watch, [PROSE, PROSE])
    assert verdicts == ["ok"] * 5


def test_after_another_sign_the_same_prose_needs_three_replies_to_stop() -> None:
    watch = StallWatch()
    read = ToolCall("call_0", "read_file", {"path": "solution.py"})
    signs = [watch.call(read, Observation("1 | def f(): ...")) for _ in range(3)]
    assert watch.judge(signs[-1]) == "intervene"
    assert steps(watch, [PROSE] * 3) == ["ok", "ok", "stop"]
    assert watch.reason == "the same reply without a tool call 3 times in a row"
