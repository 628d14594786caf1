"""One request to the model as a solver sends it: the conversation fitted to the window, the
reply streamed through the stops that cut it short — one that begins to rewrite a read-only
file (``CopyStop``), one that loops (``RunawayStop``) — and trimmed where they cut."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from patchwright.agent.copy_stop import CopyStop
from patchwright.agent.fit import fitted
from patchwright.agent.runaway import RunawayStop
from patchwright.llm import Message, Model, Reply

# what a conversation may fill of the window besides the reply: a tokenizer-free count runs
# ~10% under on test output (Exercism's camicia: 2,570 estimated, 2,806 real)
FIT_SHARE, FIT_MARGIN = 0.9, 256


@dataclass(frozen=True)
class Asked:
    """A reply, and why it was cut short: the read-only file it began to rewrite
    (``refused``), what it kept repeating (``looped``); ``sent``: the request as sent."""

    reply: Reply
    refused: str | None
    looped: str | None
    sent: list[Message]


def ask_model(
    model: Model,
    messages: Sequence[Message],
    protected: Collection[str],
    *,
    reply_tokens: int,
    phase: str,
    temperature: float | None,
    on_token: Callable[[str], None],
) -> Asked:
    runaway = RunawayStop(on_token)
    stop = CopyStop(protected, runaway)
    limit = int(model.context_window * FIT_SHARE) - reply_tokens - FIT_MARGIN
    sent = fitted(list(messages), limit, model.count_tokens)
    reply = model.complete(
        sent, on_token=stop, max_tokens=reply_tokens, temperature=temperature, phase=phase
    )
    if stop.cut is not None:
        reply = replace(reply, text=stop.trimmed(reply.text))
    return Asked(reply, stop.refused, runaway.looped, sent)


def was_cut_off(reply: Reply, limit: int) -> bool:
    """True when the reply stopped at the token limit rather than finishing."""
    return reply.finish_reason == "length" or reply.usage.completion_tokens >= limit
