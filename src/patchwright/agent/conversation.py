"""The pipeline solver's conversation: the messages it sends, those it left behind, and the
requests an echo's feedback was joined to.

A reply that changes nothing (or repeats a rejected change) is dropped, and its feedback joins
the request it answered instead of following it: left in the history, an echo invites the next
reply to copy it again. ``Conversation`` remembers each such request as first sent, so that a
fresh start (or a check of what the model was already shown) sees the request, not the notes
piled on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from patchwright.llm import Message


@dataclass
class Conversation:
    messages: list[Message] = field(default_factory=list)
    earlier: list[Message] = field(default_factory=list)  # conversations left by a new one
    echo_base: tuple[Message, str] | None = None  # a request echoes were answered in, as sent
    fresh: Message | None = None  # the request of the last fresh start (see ``restated``)
    fresh_of: str = ""  # the request that fresh start restated

    @property
    def history(self) -> list[Message]:
        """Every message of the run, those of conversations left behind first."""
        return [*self.earlier, *self.messages]

    def as_sent(self, message: Message) -> str:
        """A request as it was first sent, before an echo's feedback joined it."""
        base = self.echo_base
        return base[1] if base is not None and base[0] is message else message["content"]

    def restated(self, request: Message) -> str:
        """The request a fresh start from ``request`` restates: ``request`` as first sent (an
        echo's feedback joined to it speaks of a reply the new conversation does not hold), or,
        from a fresh start's own request, the one that restated — never nested in itself."""
        if request is not self.fresh:
            self.fresh_of = self.as_sent(request)
        return self.fresh_of

    def shows(self, text: str) -> bool:
        """Whether ``text`` (what fails now) is in this conversation's requests word for word
        as first sent — the first request's failing tests, a repair's report: feedback to an
        echo then points back to it instead of sending it again (HumanEvalFix Go: three copies
        in one request)."""
        text = text.strip()
        return bool(text) and any(
            text in self.as_sent(m) for m in self.messages if m["role"] == "user"
        )

    def add_feedback(self, text: str) -> None:
        """The feedback as the next request; after a dropped echo, added to the request the
        echo answered instead (a later echo's feedback replaces an earlier one's there)."""
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != "user":
            self.messages.append({"role": "user", "content": text})
            return
        if self.echo_base is None or self.echo_base[0] is not last:
            self.echo_base = (last, last["content"])
        last["content"] = f"{self.echo_base[1]}\n\n{text}"

    def restart(self, messages: list[Message]) -> None:
        """Go on in ``messages``; the conversation left stays in :attr:`history`."""
        self.earlier.extend(self.messages)
        self.messages[:] = messages
        self.echo_base = None
