"""A reply that loops is noticed within a few repeats; code that only looks alike is not."""

from __future__ import annotations

import pytest

from patchwright.agent.pipeline_options import REPLY_TOKENS
from patchwright.agent.runaway import LONG, PERIOD, RunawayStop, repeating, roomier, said
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


SECTION = (
    'The files you may edit:\n\nCargo.toml\n```toml\n[package]\nedition = "2021"\n'
    'name = "gigasecond"\nversion = "2.0.0"\n\n[dependencies]\ntime = "0.3"\n```\n\n'
    "src/lib.rs\n```rust\nuse time::PrimitiveDateTime as DateTime;\n\n"
    "// Returns a DateTime one billion seconds after start.\n"
    "pub fn after(start: DateTime) -> DateTime {\n"
    "    start + std::time::Duration::from_secs(1_000_000_000)\n}\n```\n\n"
)
EDITS = SECTION.removeprefix("The files you may edit:\n\n")


def test_a_reply_that_copies_a_long_section_over_and_over_is_a_loop_by_its_third_copy() -> None:
    """Polyglot Rust gigasecond: the solving reply went on copying the prompt's "The files you
    may edit:" section (~480 characters a copy) to its token limit."""
    assert PERIOD < len(SECTION) < LONG
    assert repeating(EDITS + SECTION * 2) is None  # twice may be the code's own
    found = repeating(EDITS + SECTION * 3)
    assert found is not None and len(found) == len(SECTION) and found in SECTION * 2
    seen: list[str] = []
    stop = RunawayStop(seen.append)
    stream = EDITS + SECTION * 10
    with pytest.raises(ReplyComplete):
        for i in range(0, len(stream), 7):
            stop(stream[i : i + 7])
    assert stop.looped is not None and "The files you may edit:" in stop.looped
    assert len("".join(seen)) < len(EDITS) + 4 * len(SECTION)  # stopped in the fourth copy


def test_a_long_piece_repeated_with_a_change_is_not_a_loop() -> None:
    copies = [SECTION.replace("2.0.0", f"2.0.{i}") for i in range(4)]
    assert repeating(EDITS + "".join(copies)) is None
