"""The pipeline's budgets, read from the model's catalog entry: how much context it is shown,
how long a reply may run, how many replies are sampled — so a small embedded model gets a lean
prompt and a bounded reply, and a large one the room it can use."""

from __future__ import annotations

import pytest

from patchwright.agent.pipeline_options import REPLY_TOKENS
from patchwright.agent.task.pipeline_strategy import (
    _reply_budget,
    candidates_for,
    context_budget,
)
from patchwright.llm import ModelInfo

EMBEDDED = ModelInfo("local:qwen2.5-coder-1.5b", context_window=32768, small=True)
HOSTED = ModelInfo("openai:gpt-4o", context_window=128000, tools=True)


def test_an_embedded_model_gets_a_lean_prompt_whatever_its_window() -> None:
    assert EMBEDDED.embedded and not HOSTED.embedded
    assert context_budget(EMBEDDED, REPLY_TOKENS) == 3000  # prefill is slow on a laptop
    assert context_budget(HOSTED, REPLY_TOKENS) == 24000  # a cap, not 60% of 128k


@pytest.mark.parametrize(
    ("window", "budget"),
    [(2048, 1000), (8192, int(8192 * 0.6) - REPLY_TOKENS), (16384, int(16384 * 0.6) - 2048)],
)
def test_the_context_is_sixty_percent_of_the_window_less_the_reply(
    window: int, budget: int
) -> None:
    info = ModelInfo("ollama:some-model", context_window=window)
    assert context_budget(info, REPLY_TOKENS) == budget  # never below 1000 tokens


def test_a_whole_file_reply_has_room_for_the_files_shown_and_edit_blocks_far_less() -> None:
    small_file = "x = 1\n" * 10
    assert _reply_budget("whole", [small_file]) == 1024
    big_file = "value = compute(a, b, c)\n" * 300
    whole = _reply_budget("whole", [big_file])
    assert 1024 < whole <= REPLY_TOKENS
    assert _reply_budget("whole", [big_file] * 10) == REPLY_TOKENS  # bounded: no runaway reply
    assert _reply_budget("diff", [big_file] * 10) == 1024
    assert _reply_budget("udiff", [], cap=512) == 512


def test_candidates_are_as_asked_else_the_measured_best_for_the_model() -> None:
    assert candidates_for(None, EMBEDDED) == 1 and candidates_for(None, HOSTED) == 1
    assert candidates_for(3, EMBEDDED) == 3
    assert candidates_for(0, HOSTED) == 1  # at least one reply
