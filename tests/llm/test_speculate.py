"""Prompt-lookup speculation: what the drafter guesses, how it sizes its guesses from how
the last ones fared, and (with the real 0.5B model) that a copying reply is sped up
without changing it."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from patchwright.llm.local import LocalModel
from patchwright.llm.speculate import FIRST_DRAFT, MAX_DRAFT, PAUSE, NgramDrafter


def ids(*tokens: int) -> npt.NDArray[np.intc]:
    return np.array(tokens, dtype=np.intc)


def test_it_proposes_what_followed_the_latest_earlier_occurrence_of_the_last_tokens() -> None:
    drafter = NgramDrafter()
    assert list(drafter(ids(1, 2, 7, 1, 2, 8, 5, 1, 2))) == [8, 5, 1, 2]


def test_a_longer_match_wins_over_a_later_shorter_one() -> None:
    drafter = NgramDrafter()
    assert list(drafter(ids(3, 1, 2, 7, 4, 1, 2, 8, 3, 1, 2)))[:2] == [7, 4]


def test_without_a_match_it_proposes_nothing() -> None:
    assert len(NgramDrafter()(ids(1, 2, 3, 4, 5))) == 0


PATTERN = list(range(100, 140)) * 4  # every pair of tokens has occurred before


def grow(drafter: NgramDrafter, length: int) -> int:
    """Call the drafter on the first ``length`` tokens of PATTERN; the guess's size."""
    return len(drafter(np.array(PATTERN[:length], dtype=np.intc)))


def test_a_guess_kept_whole_doubles_the_next_and_a_partly_kept_one_shrinks_it() -> None:
    drafter = NgramDrafter()
    assert grow(drafter, 50) == FIRST_DRAFT
    assert grow(drafter, 50 + FIRST_DRAFT + 1) == 2 * FIRST_DRAFT  # all kept, plus one chosen
    at = 50 + FIRST_DRAFT + 1
    assert grow(drafter, at + 3 + 1) == 4  # kept 3 of 16: next guess 3 + 1
    assert drafter.proposed == FIRST_DRAFT + 2 * FIRST_DRAFT + 4
    assert drafter.accepted == FIRST_DRAFT + 3
    assert 2 * FIRST_DRAFT == MAX_DRAFT


def test_three_rejected_guesses_in_a_row_make_it_pause() -> None:
    drafter = NgramDrafter()
    length = 50
    sizes = []
    for _ in range(4 + PAUSE):
        sizes.append(grow(drafter, length))
        length += 1  # nothing of the guess kept: only llama.cpp's own token
    assert sizes[:3] == [FIRST_DRAFT, FIRST_DRAFT // 2, FIRST_DRAFT // 4]
    assert sizes[3 : 3 + PAUSE] == [0] * PAUSE
    assert sizes[3 + PAUSE] > 0


def test_a_new_reply_starts_with_counts_at_zero_and_a_full_size_guess() -> None:
    drafter = NgramDrafter()
    grow(drafter, 50)
    grow(drafter, 51)
    drafter.start()
    assert (drafter.proposed, drafter.accepted) == (0, 0)
    assert grow(drafter, 45) == FIRST_DRAFT


CODE = '''def parse_duration(text: str) -> int:
    """Parse '1h30m', '45s', '2m' into seconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    total, number = 0, ""
    for ch in text.strip():
        if ch.isdigit():
            number += ch
        elif ch in units and number:
            total += int(number) + units[ch]
            number = ""
        else:
            raise ValueError(f"bad duration: {text!r}")
    return total
'''


@pytest.mark.slow
def test_a_reply_that_copies_the_prompt_is_guessed_and_comes_out_the_same() -> None:
    prompt = [
        {"role": "system", "content": "Reply with the whole file in one ```python fence."},
        {
            "role": "user",
            "content": f"duration.py:\n```python\n{CODE}```\n'2m' gives 62, not 120. Fix it.",
        },
    ]
    plain = LocalModel("qwen2.5-coder-0.5b", prompt_lookup=False)
    fast = LocalModel("qwen2.5-coder-0.5b")
    expected = plain.complete(prompt, max_tokens=300, temperature=0.0)  # type: ignore[arg-type]
    reply = fast.complete(prompt, max_tokens=300, temperature=0.0)  # type: ignore[arg-type]
    assert plain.last.drafted_tokens == 0
    assert fast.last.accepted_tokens > fast.last.completion_tokens // 2
    assert reply.text == expected.text
