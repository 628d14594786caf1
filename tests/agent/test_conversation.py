"""The solver's conversation: feedback to a dropped echo joins the request it answered, and
the request is remembered as first sent."""

from __future__ import annotations

from patchwright.agent.conversation import Conversation
from patchwright.llm import Message


def _started() -> Conversation:
    return Conversation(
        [{"role": "system", "content": "sys"}, {"role": "user", "content": "fix add"}]
    )


def test_feedback_after_a_reply_is_the_next_request() -> None:
    c = _started()
    c.messages.append({"role": "assistant", "content": "a change"})
    c.add_feedback("tests still fail")
    assert c.messages[-1] == {"role": "user", "content": "tests still fail"}


def test_feedback_to_a_dropped_echo_joins_the_request_and_a_later_one_replaces_it() -> None:
    c = _started()
    c.add_feedback("Your reply changed nothing.")
    assert c.messages[-1]["content"] == "fix add\n\nYour reply changed nothing."
    c.add_feedback("Your reply repeated a failed change.")
    assert c.messages[-1]["content"] == "fix add\n\nYour reply repeated a failed change."
    assert len(c.messages) == 2
    assert c.as_sent(c.messages[-1]) == "fix add"


def test_what_was_shown_is_judged_on_requests_as_first_sent() -> None:
    c = _started()
    c.add_feedback("FAIL test_add")
    assert not c.shows("FAIL test_add")  # only the feedback says it, not the request
    assert c.shows("fix add")
    assert not c.shows("   ")


def test_a_restart_keeps_the_old_conversation_in_the_history() -> None:
    c = _started()
    c.add_feedback("echo feedback")
    fresh: list[Message] = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "again"},
    ]
    c.restart(fresh)
    assert [m["content"] for m in c.history] == ["sys", "fix add\n\necho feedback", "sys", "again"]
    assert c.echo_base is None
    c.add_feedback("next")
    assert c.messages[-1]["content"] == "again\n\nnext"
