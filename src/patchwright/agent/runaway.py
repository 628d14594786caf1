"""A reply that has fallen into a loop, stopped as it begins; and more room for a reply that
was cut off while it was still writing.

A small model's reply can fall into a loop — one line, a few lines, or spaces, over and over —
and run to its token limit: at the embedded model's 7–15 tokens a second that is one to two
minutes of nothing. So :class:`RunawayStop` watches the reply as it streams, and once its
last :data:`WINDOW` characters repeat with a period of at most :data:`PERIOD` characters
(code that is not looping does not repeat itself exactly for that long), or it ends in three
copies of a longer piece, up to :data:`LONG` characters (polyglot Rust gigasecond's solving
reply went on to copy the prompt's ~480-character "The files you may edit:" section until
its token limit), the reply ends (:class:`patchwright.llm.ReplyComplete`) and the model is
told what it repeated.

A reply cut off at the limit without looping was still writing: an exercise implemented from
its stubs is several times the stub (polyglot Rust scale-generator: the stubs' file ~250
tokens, the implementation ~920 against a limit of 1,024 — cut off twice, then a third reply
that fit). :func:`roomier` doubles the limit, up to :data:`REPLY_TOKENS`, for the replies
that follow.
"""

from __future__ import annotations

from patchwright.agent.pipeline_options import REPLY_TOKENS
from patchwright.llm import OnToken, ReplyComplete

WINDOW = 600  # characters at the end of a reply that must repeat
PERIOD = 200  # at most this long a piece repeated
LONG = 1_000  # at most this long a piece repeated three times
_EVERY = 40  # characters between checks


def repeating(text: str) -> str | None:
    """The piece ``text`` ends by repeating (shortest period), when its last :data:`WINDOW`
    characters are that piece over and over, or its end is three copies of a piece of at
    most :data:`LONG` characters; else None."""
    tail = text[-WINDOW:]
    if len(tail) < WINDOW:
        return None
    for period in range(1, PERIOD + 1):
        if tail[period:] == tail[:-period]:
            return _from_a_line(tail[-period:])
    return _long_piece(text[-3 * LONG :])


def _long_piece(text: str) -> str | None:
    """The piece of :data:`PERIOD` to :data:`LONG` characters that ``text`` ends with three
    copies of: each earlier place the last :data:`PERIOD` characters occur is a period to try,
    shortest first."""
    n, probe = len(text), text[-PERIOD:]
    end = n - 1  # an earlier occurrence begins before the probe's own
    while (at := text.rfind(probe, max(0, n - PERIOD - LONG), end)) >= 0:
        period = n - PERIOD - at
        if (
            period > PERIOD
            and 3 * period <= n
            and text[-2 * period :] == text[-3 * period : -period]
        ):
            return _from_a_line(text[-period:])
        end = at + PERIOD - 1
    return None


def _from_a_line(piece: str) -> str:
    """``piece`` turned to begin at a line's start, where it has one."""
    start = piece.find("\n") + 1
    return piece[start:] + piece[:start]


def said(piece: str) -> str:
    """``piece`` as a reader sees it: its first line with text, or what its blanks are."""
    line = next((x.strip() for x in piece.splitlines() if x.strip()), "")
    if line:
        return f"`{line[:80]}`"
    return "blank lines" if "\n" in piece else "spaces"


class RunawayStop:
    """An ``on_token`` wrapper that ends a reply once it loops (:attr:`looped`: the piece)."""

    def __init__(self, on_token: OnToken | None = None) -> None:
        self._on_token = on_token
        self._tail = ""  # the reply's last characters, enough for a check
        self._unchecked = 0  # characters come since the last check
        self.looped: str | None = None

    def __call__(self, piece: str) -> None:
        if self._on_token is not None:
            self._on_token(piece)
        self._tail = (self._tail + piece)[-3 * LONG :]
        self._unchecked += len(piece)
        if self._unchecked < _EVERY:
            return
        self._unchecked = 0
        self.looped = repeating(self._tail)
        if self.looped is not None:
            raise ReplyComplete


def roomier(limit: int) -> int:
    """The token limit for the replies after one cut off while still writing."""
    return max(limit, min(REPLY_TOKENS, 2 * limit))
