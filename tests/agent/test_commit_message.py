"""Commit messages: the model's line when it is conventional, a safe fallback otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from patchwright.agent.task.commit_message import (
    clean_message,
    fallback_message,
    write_commit_message,
)
from patchwright.llm import Message, Reply
from patchwright.llm.scripted import ScriptedModel

DIFF = (
    "--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -1 +1 @@\n-    return t\n+    return round(t, 2)\n"
)


def test_conventional_line_is_extracted_from_chatter() -> None:
    reply = "Sure! Here it is:\n```\nfix(pricing): return the discounted price\n```"
    assert clean_message(reply) == "fix(pricing): return the discounted price"


def test_non_conventional_reply_is_rejected() -> None:
    assert clean_message("I changed the discount code.") is None


def test_fallback_is_conventional_and_short() -> None:
    message = fallback_message("make   apply_discount return the price after the discount " * 3)
    assert message.startswith("fix: make apply_discount")
    assert len(message) <= 72


def test_long_lines_are_cut_at_a_word_boundary() -> None:
    line = (
        "fix(pricing): apply_discount in inventory/pricing.py returns the price after the discount"
    )
    cleaned = clean_message(line)
    assert cleaned is not None and len(cleaned) <= 72
    assert line.startswith(cleaned) and line[len(cleaned)] == " "


def test_a_path_scope_becomes_the_module_name() -> None:
    assert clean_message("fix(inventory/pricing.py): return the price") == (
        "fix(pricing): return the price"
    )
    assert clean_message("feat(src/cli/): add --json") == "feat(cli): add --json"


def test_a_module_scope_is_kept_as_written() -> None:
    assert clean_message("chore(deps): bump ruff") == "chore(deps): bump ruff"
    assert clean_message("docs(v1.2): note the change") == "docs(v1.2): note the change"


def test_the_models_line_is_the_message_with_a_module_scope() -> None:
    model = ScriptedModel(["fix(shop/cart.py): round totals to cents"])
    assert write_commit_message(model, "totals show too many decimals", DIFF) == (
        "fix(cart): round totals to cents"
    )


def test_a_reply_that_copies_the_prompts_example_falls_back_to_the_task() -> None:
    model = ScriptedModel(["fix(parser): accept dates without a day"])
    message = write_commit_message(model, "totals show too many decimals", DIFF)
    assert message == "fix: totals show too many decimals"


class RecordingModel(ScriptedModel):
    def __init__(self, replies: list[str]) -> None:
        super().__init__(replies)
        self.prompts: list[str] = []

    def complete(self, messages: Sequence[Message], **kwargs: Any) -> Reply:
        self.prompts.extend(str(m["content"]) for m in messages)
        return super().complete(messages, **kwargs)


def test_the_prompt_shows_the_diff_and_the_task() -> None:
    model = RecordingModel(["chore: x"])
    write_commit_message(model, "totals show too many decimals", DIFF)
    assert DIFF.strip() in model.prompts[0]
    assert "totals show too many decimals" in model.prompts[0]


def test_a_long_task_is_cut_to_its_opening_in_the_prompt() -> None:
    spec = "Convert a phrase to its acronym. " + "Punctuation rules and examples follow. " * 60
    model = RecordingModel(["feat(acronym): abbreviate phrases"])
    write_commit_message(model, spec, DIFF)
    assert DIFF.strip() in model.prompts[0]
    assert "Task: Convert a phrase to its acronym." in model.prompts[0]
    assert spec.strip() not in model.prompts[0]
    assert len(model.prompts[0]) < len(DIFF) + 400 + 700  # diff + gist + instructions


def test_quotes_around_the_line_go_and_quotes_inside_it_stay() -> None:
    assert clean_message('`fix(greet): say "Hello, World!"`') == 'fix(greet): say "Hello, World!"'
    assert clean_message("'fix: trim names'") == "fix: trim names"


EXCHANGE: list[Message] = [
    {"role": "system", "content": "You change code."},
    {"role": "user", "content": "totals show too many decimals"},
    {"role": "assistant", "content": "shop/cart.py\n```python\nreturn round(t, 2)\n```"},
]


class MessagesModel(ScriptedModel):
    def __init__(self, replies: list[str], context_window: int = 131072) -> None:
        super().__init__(replies)
        self.context_window = context_window
        self.sent: list[list[Message]] = []

    def complete(self, messages: Sequence[Message], **kwargs: Any) -> Reply:
        self.sent.append(list(messages))
        return super().complete(messages, **kwargs)


def test_after_the_exchange_that_made_the_change_the_message_is_one_more_turn_of_it() -> None:
    model = MessagesModel(["fix(cart): round totals to cents"])
    message = write_commit_message(model, "totals too precise", DIFF, exchange=EXCHANGE)
    assert message == "fix(cart): round totals to cents"
    [sent] = model.sent
    assert sent[:-1] == EXCHANGE and sent[-1]["role"] == "user"
    assert DIFF.strip() not in str(sent[-1]["content"])  # the reply above shows the change


def test_an_exchange_that_would_not_fit_the_window_gives_way_to_the_diff_prompt() -> None:
    model = MessagesModel(["fix(cart): round totals to cents"], context_window=60)
    write_commit_message(model, "totals too precise", DIFF, exchange=EXCHANGE)
    [sent] = model.sent
    assert len(sent) == 1 and DIFF.strip() in str(sent[0]["content"])


def test_an_exchange_without_its_reply_gives_way_to_the_diff_prompt() -> None:
    model = MessagesModel(["fix(cart): round totals to cents"])
    write_commit_message(model, "totals too precise", DIFF, exchange=EXCHANGE[:2])
    assert DIFF.strip() in str(model.sent[0][0]["content"])
