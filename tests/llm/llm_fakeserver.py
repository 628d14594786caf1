"""A small protocol-speaking server on loopback for the SDK backends' tests.

It speaks OpenAI's ``/v1/chat/completions`` (SSE streaming, tool-call deltas, usage)
and Anthropic's ``/v1/messages`` (SSE events), and misbehaves on demand: 429 with
``Retry-After``, 500, 400, 401, hanging past the client's timeout, cutting a stream
short. Behaviours are queued (``server.plan(...)``) or chosen per key
(``server.per_key``); every request is logged with its key and JSON body.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = str  # "ok", "tool", "429", "500", "400", "400-tools", "401", "404", "hang", "cut"


@dataclass
class Logged:
    path: str
    key: str
    body: dict[str, Any]
    behaviour: str


@dataclass
class FakeState:
    queue: deque[Behaviour] = field(default_factory=deque)
    per_key: dict[str, Behaviour] = field(default_factory=dict)
    log: list[Logged] = field(default_factory=list)
    text: str = "Hello from the fake server."
    retry_after: str = "7"
    hang_seconds: float = 1.0
    reject_tools: bool = False
    send_usage: bool = True  # llama.cpp's server sends no usage chunk when streaming
    # a sampling server: with variants, temperature 0 answers the first, any other (or none:
    # the server's default, 0.8 as llama.cpp's) a random one, like a real sampler — the
    # same one for the same request ``seed``
    variants: list[str] = field(default_factory=list)
    default_temperature: float = 0.8
    lock: threading.Lock = field(default_factory=threading.Lock)


def prompt_tokens_of(body: dict[str, Any]) -> int:
    """What the fake bills for a prompt: a quarter token per character of content."""
    chars = 0
    for msg in body.get("messages", []):
        content = msg.get("content") or ""
        chars += len(content if isinstance(content, str) else json.dumps(content))
    for block in body.get("system", []) or []:
        chars += len(block.get("text", "")) if isinstance(block, dict) else len(str(block))
    return chars // 4 + 1


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body ends when the connection closes
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        return

    def do_GET(self) -> None:
        self._json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        auth = self.headers.get("authorization", "") or self.headers.get("x-api-key", "")
        key = auth.removeprefix("Bearer ").strip()
        with state.lock:
            behaviour = state.per_key.get(key) or (state.queue.popleft() if state.queue else "ok")
            if behaviour == "ok" and state.reject_tools and body.get("tools"):
                behaviour = "400-tools"
            state.log.append(Logged(self.path, key, body, behaviour))
        if behaviour == "429":
            self._json(
                429, {"error": {"message": "rate limited"}}, {"Retry-After": state.retry_after}
            )
        elif behaviour == "500":
            self._json(500, {"error": {"message": "boom"}})
        elif behaviour == "400":
            self._json(400, {"error": {"message": "bad request: unknown field"}})
        elif behaviour == "400-tools":
            self._json(400, {"error": {"message": "this model does not support tools"}})
        elif behaviour == "404":
            self._json(404, {"error": {"message": f"model '{body.get('model')}' not found"}})
        elif behaviour == "401":
            self._json(401, {"error": {"message": "invalid api key"}})
        elif behaviour == "hang":
            time.sleep(state.hang_seconds)
            self._json(500, {"error": {"message": "too late"}})
        elif self.path == "/api/chat":
            self._ollama(body, behaviour)
        elif self.path.endswith("/messages"):
            self._anthropic(body, cut=behaviour == "cut")
        else:
            self._openai(body, behaviour)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _sse_start(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()

    def _event(self, obj: Any, name: str | None = None) -> None:
        prefix = f"event: {name}\n" if name else ""
        self.wfile.write(f"{prefix}data: {json.dumps(obj)}\n\n".encode())
        self.wfile.flush()

    def _pieces(self, body: dict[str, Any]) -> list[str]:
        state = self.server.state
        if state.variants:
            given = body.get("temperature", body.get("options", {}).get("temperature"))
            temperature = state.default_temperature if given is None else float(given)
            given_seed = body.get("seed", body.get("options", {}).get("seed"))
            draw = random.Random(given_seed) if given_seed is not None else random
            text = state.variants[0] if temperature == 0 else draw.choice(state.variants)
            return re.findall(r"\S+\s*|\s+", text)
        words = [w + " " for w in state.text.split()]
        limit = body.get("max_tokens") or body.get("max_completion_tokens") or len(words)
        return words[: int(limit)]

    def _openai(self, body: dict[str, Any], behaviour: str) -> None:
        self._sse_start()
        base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "fake"}
        pieces = self._pieces(body)
        if behaviour == "tool":
            args = json.dumps({"path": "a.py"})
            deltas: list[dict[str, Any]] = [
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": args[:5]},
                        }
                    ]
                },
                {"tool_calls": [{"index": 0, "function": {"arguments": args[5:]}}]},
            ]
            pieces, finish = [], "tool_calls"
        else:
            deltas = [{"content": p} for p in pieces]
            finish = "length" if len(pieces) < len(self.server.state.text.split()) else "stop"
        for i, delta in enumerate(deltas):
            if behaviour == "cut" and i == 2:
                return  # connection closes mid-stream: no finish, no [DONE]
            self._event({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        if behaviour == "cut":
            return
        self._event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if not self.server.state.send_usage:
            self.wfile.write(b"data: [DONE]\n\n")
            return
        prompt = prompt_tokens_of(body)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": max(1, len(pieces)),
            "total_tokens": prompt + len(pieces),
            "prompt_tokens_details": {"cached_tokens": prompt // 2},
        }
        self._event({**base, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")

    def _ollama(self, body: dict[str, Any], behaviour: str) -> None:
        """Ollama's native API: newline-delimited JSON, counts on the last line."""
        self.send_response(200)
        self.send_header("content-type", "application/x-ndjson")
        self.end_headers()
        base = {"model": body.get("model"), "created_at": "2026-01-01T00:00:00Z"}
        options = body.get("options", {})
        pieces = self._pieces({"max_tokens": options.get("num_predict"), "options": options})
        if behaviour == "tool":
            call = {"function": {"name": "read_file", "arguments": {"path": "a.py"}}}
            lines = [{"role": "assistant", "content": "", "tool_calls": [call]}]
        else:
            lines = [{"role": "assistant", "content": p} for p in pieces]
        for i, message in enumerate(lines):
            if behaviour == "cut" and i == 2:
                return
            self.wfile.write(
                (json.dumps({**base, "message": message, "done": False}) + "\n").encode()
            )
            self.wfile.flush()
        final = {
            **base,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": prompt_tokens_of(body),
            "eval_count": len(lines),
        }
        self.wfile.write((json.dumps(final) + "\n").encode())

    def _anthropic(self, body: dict[str, Any], *, cut: bool) -> None:
        self._sse_start()
        prompt = prompt_tokens_of(body)
        cached_system = any("cache_control" in b for b in body.get("system", []) or [])
        read = prompt // 2 if cached_system else 0
        usage = {
            "input_tokens": prompt - read,
            "output_tokens": 1,
            "cache_read_input_tokens": read,
            "cache_creation_input_tokens": 0,
        }
        msg: dict[str, Any] = {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "model": body.get("model"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        self._event({"type": "message_start", "message": msg}, "message_start")
        self._event(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        )
        pieces = self._pieces(body)
        for i, p in enumerate(pieces):
            if cut and i == 2:
                return
            self._event(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": p},
                },
                "content_block_delta",
            )
        self._event({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self._event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": len(pieces)},
            },
            "message_delta",
        )
        self._event({"type": "message_stop"}, "message_stop")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    state: FakeState

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # clients that gave up (timeouts) close the socket: that is the point


class FakeServer:
    """Start with ``with FakeServer() as srv:``; ``srv.url`` is the ``/v1`` base URL."""

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.state = FakeState()
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def state(self) -> FakeState:
        return self._httpd.state

    @property
    def root(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        return self.root + "/v1"

    def plan(self, *behaviours: Behaviour) -> None:
        with self.state.lock:
            self.state.queue.extend(behaviours)

    def reset(self) -> None:
        with self.state.lock:
            self.state.queue.clear()
            self.state.per_key.clear()
            self.state.log.clear()
            self.state.reject_tools = False
            self.state.variants.clear()
            defaults = FakeState()
            self.state.text = defaults.text
            self.state.retry_after = defaults.retry_after
            self.state.hang_seconds = defaults.hang_seconds

    @property
    def log(self) -> list[Logged]:
        with self.state.lock:
            return list(self.state.log)

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def stop_after(count: int, pieces: list[str]) -> Callable[[str], None]:
    """An ``on_token`` that keeps the pieces and says the reply is complete after ``count``."""
    from patchwright.llm import ReplyComplete

    def take(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == count:
            raise ReplyComplete

    return take
