"""``python -m llama_cpp.server`` with a usage log: run by the server's interpreter (its own
virtualenv, see ``llama_server.py``), never imported by the benchmark.

    server_main.py USAGE_LOG [llama_cpp.server arguments ...]

The streamed replies of ``llama_cpp.server`` carry no ``usage``, and both tools stream, so
the tokens are counted here, the same way for every client: each ``Llama.generate`` call
(one per completion) appends two JSON lines to USAGE_LOG — ``start`` when it begins and
``end`` with the prompt length, the prefix reused from the KV cache (the rest is
prefilled), the tokens generated, the temperature actually used, the seconds to the first
token and to the last. Everything else is the stock server.

A client that stops reading mid-reply (patchwright ends a reply that starts copying a
read-only file; Aider killed at its time limit) leaves the server's generator open until it
is garbage-collected, 10–25 s later and often after the task that asked for it has ended:
its ``end`` was then logged too late to be counted for that task (HumanEvalFix
JavaScript-53's first reply went uncounted so). A completion that has handed out a token and
is not asked for the next within ``IDLE_S`` seconds is taken as abandoned: its ``end`` is
logged then (``"abandoned": true``; ``seconds`` ends at the last token handed out), and a
``closed`` line follows when the generator is closed. Should it be read on after all, its
``end`` is logged again when it ends, and the later line counts.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

_ids = itertools.count(1)
_write = threading.Lock()
IDLE_S = 4.0  # a completion not asked for its next token this long was abandoned


def _log(handle: TextIO, record: dict[str, Any]) -> None:
    with _write:
        handle.write(json.dumps(record) + "\n")
        handle.flush()


def _reused(llama: Any, tokens: Sequence[int]) -> int:
    """Tokens of ``tokens`` already in the KV cache (the longest common prefix)."""
    cached = list(llama._input_ids[: llama.n_tokens])
    n = 0
    for a, b in zip(cached, tokens, strict=False):
        if a != b:
            break
        n += 1
    return n


@dataclass
class Completion:
    """One completion as it goes: what its ``end`` line says."""

    id: int
    started: float
    prompt_tokens: int
    reused_tokens: int
    temperature: float | None
    first: float | None = None
    last: float | None = None
    generated: int = 0
    waiting_since: float | None = None  # handed out a token, the next not yet asked for
    ended: bool = False  # its end line is written

    def end_record(self, now: float, *, abandoned: bool) -> dict[str, Any]:
        record = {
            "event": "end",
            "id": self.id,
            "t": self.started,
            "prompt_tokens": self.prompt_tokens,
            "reused_tokens": self.reused_tokens,
            "completion_tokens": self.generated,
            "temperature": self.temperature,
            "ttft_s": round((self.first or now) - self.started, 3),
            "seconds": round((self.last or now) - self.started, 3),
        }
        if abandoned:
            return record | {"abandoned": True}
        return record | {"closed_s": round(now - self.started, 3)}


class Ledger:
    """The usage log: the open completions, and the ``end`` of one left unread."""

    def __init__(self, handle: TextIO, idle_s: float = IDLE_S) -> None:
        self.handle = handle
        self.idle_s = idle_s
        self.open: dict[int, Completion] = {}
        self.lock = threading.Lock()

    def begin(self, prompt_tokens: int, reused: int, temperature: float | None) -> Completion:
        c = Completion(next(_ids), time.time(), prompt_tokens, reused, temperature)
        with self.lock:
            self.open[c.id] = c
        _log(self.handle, {"event": "start", "id": c.id, "t": c.started})
        return c

    def handed(self, c: Completion, *, counted: bool) -> None:
        """A token handed out (``counted``: not the end token)."""
        with self.lock:
            c.last = time.time()
            c.first = c.first or c.last
            c.generated += counted
            c.waiting_since = c.last

    def resumed(self, c: Completion) -> None:
        with self.lock:
            c.waiting_since = None
            rewrite, c.ended = c.ended, False
        if rewrite:  # taken for abandoned, read on after all: its end is logged again
            _log(self.handle, {"event": "resumed", "id": c.id, "t": c.started})

    def finish(self, c: Completion) -> None:
        now = time.time()
        with self.lock:
            self.open.pop(c.id, None)
            ended = c.ended
        if ended:
            _log(
                self.handle, {"event": "closed", "id": c.id, "closed_s": round(now - c.started, 3)}
            )
        else:
            _log(self.handle, c.end_record(now, abandoned=False))

    def sweep(self, now: float) -> None:
        """Log the end of each completion whose reader has stopped asking."""
        with self.lock:
            idle = [c for c in self.open.values() if not c.ended and c.waiting_since is not None
                    and now - c.waiting_since >= self.idle_s]  # fmt: skip
            for c in idle:
                c.ended = True
        for c in idle:
            _log(self.handle, c.end_record(now, abandoned=True))

    def watch(self, every: float = 0.5) -> None:
        def loop() -> None:
            while True:
                time.sleep(every)
                self.sweep(time.time())

        threading.Thread(target=loop, name="usage-watch", daemon=True).start()


def counted(
    ledger: Ledger, tokens: Iterator[int], call: Completion, is_end: Callable[[int], bool]
) -> Iterator[int]:
    """``tokens`` as they are handed out, each counted in ``call``."""
    try:
        for token in tokens:
            ledger.handed(call, counted=not is_end(token))  # as the server counts: no end token
            yield token
            ledger.resumed(call)
    finally:
        ledger.finish(call)


def instrument(handle: TextIO) -> None:
    import llama_cpp

    original: Callable[..., Iterator[int]] = llama_cpp.Llama.generate
    ledger = Ledger(handle)
    ledger.watch()

    def generate(self: Any, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        call = ledger.begin(len(tokens), _reused(self, tokens), kwargs.get("temp"))
        vocab = self._model.vocab
        yield from counted(
            ledger,
            original(self, tokens, *args, **kwargs),
            call,
            lambda token: bool(llama_cpp.llama_vocab_is_eog(vocab, token)),
        )

    llama_cpp.Llama.generate = generate  # type: ignore[method-assign,assignment]


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before llama_cpp is imported
    handle = open(sys.argv[1], "a", encoding="utf-8")  # noqa: SIM115 - open for the server's life
    instrument(handle)
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    from llama_cpp.server.__main__ import main as serve

    serve()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
