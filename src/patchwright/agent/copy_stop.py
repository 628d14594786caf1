"""Stop a whole-file reply that, its edits written, starts copying a read-only file.

Shown the tests "for reference only, do not resend them", a small model often writes its
file and then the test file too, line for line: that copy is dropped anyway (the file is
read-only) and costs as long as the fix itself (Exercism's binary-search-tree: ~800 of a
1,329-token first reply). Once the reply has at least one closed fenced block, a line naming
a read-only file followed by an opening fence ends the reply there
(:class:`patchwright.llm.ReplyComplete`); the text is cut before that line. A reply whose
*first* block is a read-only file ends at that block's fence too (:attr:`CopyStop.refused`
names the file), and the model is told why: on the benchmarks' kept records, 6 of 168 replies
began with the test file and none went on to the code (Exercism's bank-account: 1,383 tokens,
175 s, for a copy that was refused).

A reply that, its edits written, goes on to copy the prompt itself ("The files you may edit:"
and the files again) ends where the copied heading begins, too: polyglot Rust gigasecond's
solving reply did so until its token limit, ~2,500 of its 3,530 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from patchwright.llm import OnToken, ReplyComplete

_FENCE = "```"
# the headings of the task prompt (templates/task.j2) that a reply has no reason to write
_ECHO = re.compile(
    r"(?m)^(?:The files you may edit:|For reference only: the tests"
    r"|Currently failing \(your change|Reply with the edits that complete)"
)


class CopyStop:
    """An ``on_token`` wrapper that ends the reply where a read-only file's copy begins."""

    def __init__(self, readonly: Iterable[str], on_token: OnToken | None = None) -> None:
        names = "|".join(
            re.escape(n) for n in sorted({p for p in readonly if p}, key=len, reverse=True)
        )
        header = rf"(?m)^[ \t#>*`]*(?P<path>{names})[`*:]*[ \t]*\n[ \t]*{_FENCE}"
        self._header = re.compile(header) if names else None
        self._on_token = on_token
        self._text = ""
        self.cut: int | None = None  # where the copy began, once found
        self.refused: str | None = None  # the read-only file the reply began with

    def __call__(self, piece: str) -> None:
        if self._on_token is not None:
            self._on_token(piece)
        start = max(0, len(self._text) - 400)  # a header spans a few pieces at most
        self._text += piece
        echo = _ECHO.search(self._text, start) if "\n" in self._text[start:] else None
        if echo is not None and _closed(self._text[: echo.start()]):
            self.cut = echo.start()
            raise ReplyComplete
        if self._header is None or _FENCE not in self._text[start:]:
            return
        found = self._header.search(self._text, start)
        if found is None:
            return
        fences = self._text[: found.start()].count(_FENCE)
        if fences == 0:
            self.refused = found.group("path")
        if fences == 0 or fences >= 2:
            self.cut = found.start()
            raise ReplyComplete

    def trimmed(self, text: str) -> str:
        """``text`` without the copy, or as it was when nothing was cut."""
        return text if self.cut is None else text[: self.cut].rstrip() + "\n"


def _closed(before: str) -> bool:
    """Whether ``before`` has a fenced block and ends outside one."""
    fences = before.count(_FENCE)
    return fences >= 2 and fences % 2 == 0
