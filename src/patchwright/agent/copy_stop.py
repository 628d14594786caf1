"""Stop a whole-file reply that, its edits written, starts copying a read-only file.

Shown the tests "for reference only, do not resend them", a small model often writes its
file and then the test file too, line for line: that copy is dropped anyway (the file is
read-only) and costs as long as the fix itself (Exercism's binary-search-tree: ~800 of a
1,329-token first reply). Once the reply has at least one closed fenced block, a line naming
a read-only file followed by an opening fence ends the reply there
(:class:`patchwright.llm.ReplyComplete`); the text is cut before that line. A reply whose
*first* block is a read-only file is left alone: the model is told why it was refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from patchwright.llm import OnToken, ReplyComplete

_FENCE = "```"


class CopyStop:
    """An ``on_token`` wrapper that ends the reply where a read-only file's copy begins."""

    def __init__(self, readonly: Iterable[str], on_token: OnToken | None = None) -> None:
        names = sorted({p for p in readonly if p}, key=len, reverse=True)
        self._header = (
            re.compile(
                r"(?m)^[ \t#>*`]*(?:" + "|".join(re.escape(n) for n in names) + r")[`*:]*[ \t]*\n"
                r"[ \t]*" + _FENCE
            )
            if names
            else None
        )
        self._on_token = on_token
        self._text = ""
        self.cut: int | None = None  # where the copy began, once found

    def __call__(self, piece: str) -> None:
        if self._on_token is not None:
            self._on_token(piece)
        if self._header is None:
            return
        start = max(0, len(self._text) - 400)  # a header spans a few pieces at most
        self._text += piece
        if _FENCE not in self._text[start:]:
            return
        found = self._header.search(self._text, start)
        if found is not None and self._text[: found.start()].count(_FENCE) >= 2:
            self.cut = found.start()
            raise ReplyComplete

    def trimmed(self, text: str) -> str:
        """``text`` without the copy, or as it was when nothing was cut."""
        return text if self.cut is None else text[: self.cut].rstrip() + "\n"
