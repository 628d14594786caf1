"""A repair conversation kept inside the model's context window.

Each failed attempt adds the model's whole reply and the report of what failed; after a few
repairs a small model's conversation outgrows its window (an Exercism exercise reached 8,473
prompt tokens against a server's 8,192, and the run ended in a provider error; another
ended so with a request estimated to fit, its test output counted ~10% short). What is sent
keeps the system prompt and the first request (the task and the code), then as many of the
latest messages as fit; the oldest repair exchanges are left out of the request — never out
of the run's record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from patchwright.llm import Message
from patchwright.llm.types import messages_token_estimate

HEAD = 2  # the system prompt and the first request


def fitted(messages: Sequence[Message], limit: int, count: Callable[[str], int]) -> list[Message]:
    """``messages`` as sent within ``limit`` prompt tokens (see the module docstring). The
    last message is always sent; a conversation that cannot fit even so goes as it is."""
    if messages_token_estimate(messages, count) <= limit or len(messages) <= HEAD + 1:
        return list(messages)
    head = list(messages[:HEAD])
    tail: list[Message] = []
    for message in reversed(messages[HEAD:]):
        if tail and messages_token_estimate([*head, message, *tail], count) > limit:
            break
        tail.insert(0, message)
    while tail and tail[0]["role"] != "assistant" and len(tail) > 1:
        tail.pop(0)  # start the kept part with a reply, so roles still alternate
    return [*head, *tail]
