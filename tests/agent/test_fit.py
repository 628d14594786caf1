"""A repair conversation sent within the model's context window: the system prompt and the
first request always, then the latest messages that fit, starting with a reply."""

from __future__ import annotations

import itertools

from patchwright.agent.fit import fitted
from patchwright.llm import Message


def words(text: str) -> int:
    return len(text.split())


def convo(exchanges: int) -> list[Message]:
    out: list[Message] = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "task " * 50},
    ]
    for i in range(exchanges):
        out.append({"role": "assistant", "content": f"attempt{i} " * 40})
        out.append({"role": "user", "content": f"failed{i} " * 20})
    return out


def test_a_conversation_that_fits_is_sent_whole() -> None:
    messages = convo(2)
    assert fitted(messages, 10_000, words) == messages


def test_the_oldest_repairs_are_left_out_first() -> None:
    messages = convo(4)  # the head is 61 "tokens", an exchange 68 with the overhead
    sent = fitted(messages, 200, words)
    assert sent[:2] == messages[:2]
    assert sent[2:] == messages[-4:]  # the two latest attempts and what they failed


def test_the_kept_part_starts_with_a_reply_so_roles_still_alternate() -> None:
    messages = convo(3)
    sent = fitted(messages, 170, words)  # room for the head and a little more than one message
    roles = [m["role"] for m in sent]
    assert roles[:3] == ["system", "user", "assistant"] and roles[-1] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles[1:]))


def test_a_conversation_that_cannot_fit_still_sends_its_last_request() -> None:
    messages = convo(1)
    assert fitted(messages, 10, words)[-1] == messages[-1]


def test_a_task_is_restated_whole_when_short_and_by_its_first_paragraph_when_long() -> None:
    from patchwright.agent.prompts import RESTATED_CHARS, restated

    assert restated("  Fix add().\n\nIt subtracts.  ") == "Fix add().\n\nIt subtracts."
    long = "Implement clock.py.\n\n" + "Instructions. " * 100
    assert restated(long) == "Implement clock.py.\n(the whole task is in the first request above)"
    one_block = "word " * 400  # no paragraph break: cut at a word, marked
    first = restated(one_block).splitlines()[0]
    assert first.endswith("word …") and len(first) <= RESTATED_CHARS + 2
