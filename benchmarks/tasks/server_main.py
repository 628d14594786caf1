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
is garbage-collected, 10–25 s later and after the next completion has begun: ``seconds``
ends at the last token handed out, and ``closed_s`` says when the generator was closed.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

_ids = itertools.count(1)
_write = threading.Lock()


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


def instrument(handle: TextIO) -> None:
    import llama_cpp

    original: Callable[..., Iterator[int]] = llama_cpp.Llama.generate

    def generate(self: Any, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        call = next(_ids)
        started = time.time()
        reused = _reused(self, tokens)
        temp = kwargs.get("temp")
        _log(handle, {"event": "start", "id": call, "t": started})
        first: float | None = None
        last: float | None = None
        generated = 0
        try:
            for token in original(self, tokens, *args, **kwargs):
                last = time.time()
                if first is None:
                    first = last
                if not llama_cpp.llama_vocab_is_eog(self._model.vocab, token):
                    generated += 1  # as the server's own usage counts: not the end token
                yield token
        finally:
            ended = time.time()
            _log(
                handle,
                {
                    "event": "end",
                    "id": call,
                    "t": started,
                    "prompt_tokens": len(tokens),
                    "reused_tokens": reused,
                    "completion_tokens": generated,
                    "temperature": temp,
                    "ttft_s": round((first or ended) - started, 3),
                    "seconds": round((last or ended) - started, 3),
                    "closed_s": round(ended - started, 3),
                },
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
