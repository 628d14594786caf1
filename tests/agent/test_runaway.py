"""A reply that loops is noticed within a few repeats; code that only looks alike is not."""

from __future__ import annotations

import pytest

from patchwright.agent.pipeline_options import REPLY_TOKENS
from patchwright.agent.runaway import RunawayStop, repeating, roomier, said
from patchwright.llm import ReplyComplete

NOTES = "C C# D D# E F F# G G# A A# B".split()
ARMS = "".join(
    f'        ({i}, "{n}") => "{NOTES[(i + 2) % 12]}",\n' for i, n in enumerate(NOTES * 2)
)
CODE = (
    "pub fn up(step: usize, note: &str) -> &str {\n    match (step, note) {\n"
    + ARMS
    + "        _ => note,\n    }\n}\n"
)


@pytest.mark.parametrize(
    ("loop", "piece"),
    [
        ("    x += 1;\n", "`x += 1;`"),
        (
            "        if a == b {\n            count += 1;\n        }\n",
            "`count += 1;`",
        ),  # a line of it
        (" ", "spaces"),
        ("\n\n", "blank lines"),
    ],
)
def test_a_reply_ending_in_a_loop_is_told_by_its_repeated_piece(loop: str, piece: str) -> None:
    found = repeating("fn main() {\n" + loop * (700 // len(loop) + 1))
    assert found is not None and said(found) == piece


def test_code_with_lines_alike_but_not_the_same_is_not_a_loop() -> None:
    assert len(CODE) > 700 and repeating(CODE) is None
    assert repeating("    x += 1;\n" * 20) is None  # too short to tell


def test_the_stop_ends_the_stream_a_few_repeats_in_and_passes_every_piece_on() -> None:
    seen: list[str] = []
    stop = RunawayStop(seen.append)
    stream = ["fn main() {\n"] + ["    x += 1;\n"] * 500
    with pytest.raises(ReplyComplete):
        for piece in stream:
            stop(piece)
    assert stop.looped is not None and said(stop.looped) == "`x += 1;`"
    assert 50 < len(seen) < 100  # ~600 characters of the loop, then a check
    quiet = RunawayStop()
    for line in CODE.splitlines(keepends=True):
        quiet(line)
    assert quiet.looped is None


def test_more_room_doubles_up_to_the_cap_and_never_shrinks() -> None:
    assert roomier(500) == 1000
    assert roomier(1024) == REPLY_TOKENS == roomier(REPLY_TOKENS)
    assert roomier(4096) == 4096
