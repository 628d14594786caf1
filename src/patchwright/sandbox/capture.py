"""Head + tail output capture: keep the first and last bytes of a stream, drop the middle."""

from __future__ import annotations

from collections import deque

MARKER = "\n[... {n} bytes omitted by the patchwright sandbox ...]\n"


class HeadTail:
    """Accumulates a byte stream, keeping at most ``limit`` bytes: half head, half tail."""

    def __init__(self, limit: int) -> None:
        self._head_cap = limit // 2
        self._tail_cap = limit - self._head_cap
        self._head = bytearray()
        self._tail: deque[bytes] = deque()
        self._tail_len = 0
        self.total = 0

    def add(self, data: bytes) -> None:
        """Append a chunk read from the stream."""
        self.total += len(data)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail.append(data)
        self._tail_len += len(data)
        while self._tail and self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())

    @property
    def truncated(self) -> bool:
        """True when some of the stream was dropped."""
        return self.total > self._head_cap + self._tail_cap

    def text(self) -> str:
        """The kept output as text (undecodable bytes replaced), with a marker at the cut."""
        tail = b"".join(self._tail)
        if not self.truncated:
            return (bytes(self._head) + tail).decode("utf-8", errors="replace")
        tail = tail[len(tail) - self._tail_cap :]
        omitted = self.total - len(self._head) - len(tail)
        head_text = bytes(self._head).decode("utf-8", errors="replace")
        tail_text = tail.decode("utf-8", errors="replace")
        return head_text + MARKER.format(n=omitted) + tail_text
