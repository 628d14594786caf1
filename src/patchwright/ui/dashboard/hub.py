"""The bridge from the review loop's thread to the dashboard's event streams.

The loop updates a :class:`ReviewState` from its own thread; every server-sent-event stream is
an ``asyncio.Queue`` on the server's loop. The hub forwards each event to every stream,
thread-safely, and each stream sends it on together with the state snapshot that followed.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator

from patchwright.events import Event
from patchwright.modes.review.state import ReviewState

KEEPALIVE = 15.0  # seconds between comments on an idle stream (proxies close silent ones)
_Item = tuple[str, int] | None  # (event JSON, state version); None ends the stream


class Hub:
    def __init__(self, state: ReviewState) -> None:
        self.state = state
        self._lock = threading.Lock()
        self._streams: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[_Item]]] = []
        self._closed = False
        self._stop_watching = state.watch(self._forward)

    def _forward(self, event: Event, version: int) -> None:
        with self._lock:
            streams = list(self._streams)
        for loop, queue in streams:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (event.to_json(), version))
            except RuntimeError:  # the server's loop is gone
                continue

    def close(self) -> None:
        """End every stream (the server is shutting down)."""
        self._stop_watching()
        with self._lock:
            self._closed = True
            streams = list(self._streams)
        for loop, queue in streams:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, None)
            except RuntimeError:
                continue

    async def stream(self) -> AsyncIterator[str]:
        """Server-sent events: the state now, then each event and the state after it."""
        queue: asyncio.Queue[_Item] = asyncio.Queue()
        entry = (asyncio.get_running_loop(), queue)
        with self._lock:
            if self._closed:
                return
            self._streams.append(entry)
        try:
            yield _sse("state", json.dumps(self.state.snapshot(), default=str))
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield ": keepalive\n\n"
                    continue
                batch = [item]
                while not queue.empty():
                    batch.append(queue.get_nowait())
                for got in batch:
                    if got is None:
                        return
                    yield _sse("event", got[0])
                yield _sse("state", json.dumps(self.state.snapshot(), default=str))
        finally:
            with self._lock:
                if entry in self._streams:
                    self._streams.remove(entry)


def _sse(name: str, data: str) -> str:
    lines = "".join(f"data: {line}\n" for line in data.splitlines() or [""])
    return f"event: {name}\n{lines}\n"
