"""Scripted replies for tests and offline demos, and the recorder that writes them.

The format is JSON lines: one object per reply, ``{"content": str, "tool_calls": [...]}``
(``tool_calls`` optional; each ``{"id", "name", "arguments"}``). Replies are consumed in
order, one per call. A recorded real session (``record=PATH``) replays offline.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from patchwright.llm.errors import ModelConfigError, ModelError
from patchwright.llm.types import (
    Message,
    OnToken,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
    feed,
    messages_token_estimate,
    rough_token_count,
)


class ScriptExhausted(ModelError):
    """The script has no reply left for this call."""


def _parse_entry(obj: Any, where: str) -> tuple[str, list[ToolCall]]:
    if not isinstance(obj, Mapping):
        raise ModelConfigError(f"{where}: expected a JSON object with a 'content' string")
    content = obj.get("content", "")
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ModelConfigError(f"{where}: 'content' must be a string")
    raw_calls = obj.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ModelConfigError(f"{where}: 'tool_calls' must be a list")
    try:
        calls = [ToolCall.coerce(c, i) for i, c in enumerate(raw_calls)]
    except (ValueError, AttributeError) as exc:
        raise ModelConfigError(f"{where}: bad tool call ({exc})") from exc
    return content, calls


def load_script(path: Path) -> list[tuple[str, list[ToolCall]]]:
    """Read and validate a JSONL script; a bad line is reported with its number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError as exc:
        raise ModelConfigError(
            f"scripted model: {path} does not exist; give a JSONL file with one "
            '{"content": ...} object per line'
        ) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelConfigError(f"scripted model: cannot read {path}: {exc}") from exc
    entries = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ModelConfigError(f"{path}:{number}: not valid JSON ({exc.msg})") from exc
        entries.append(_parse_entry(obj, f"{path}:{number}"))
    return entries


class ScriptedModel:
    """Answers each call with the next scripted reply; streams it word by word."""

    def __init__(
        self,
        replies: Sequence[str | Mapping[str, Any]] | Path,
        *,
        name: str | None = None,
        context_window: int = 131072,
    ) -> None:
        if isinstance(replies, Path):
            self._entries = load_script(replies)
            self.name = name or f"scripted:{replies}"
            self._source = str(replies)
        else:
            self._entries = [
                _parse_entry({"content": r} if isinstance(r, str) else r, f"reply {i}")
                for i, r in enumerate(replies)
            ]
            self.name = name or "scripted"
            self._source = "the given list"
        self.context_window = context_window
        self._next = 0
        self._lock = threading.Lock()

    @property
    def remaining(self) -> int:
        return len(self._entries) - self._next

    def count_tokens(self, text: str) -> int:
        return rough_token_count(text)

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_token: OnToken | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        phase: str = "",
        seed: int | None = None,
    ) -> Reply:
        start = time.monotonic()
        with self._lock:
            if self._next >= len(self._entries):
                raise ScriptExhausted(
                    f"{self.name}: all {len(self._entries)} scripted replies from "
                    f"{self._source} are used up (call {self._next + 1}); add more lines "
                    "to the script or stop the run earlier"
                )
            text, calls = self._entries[self._next]
            self._next += 1
        finish = "tool_calls" if calls else "stop"
        said = []
        for piece in re.findall(r"\s*\S+|\s+", text) if on_token is not None else ():
            said.append(piece)
            if not feed(on_token, piece):
                text, calls = "".join(said), []  # as a model stopped there would leave it
                break
        usage = Usage(
            prompt_tokens=messages_token_estimate(messages, self.count_tokens),
            completion_tokens=self.count_tokens(text),
        )
        return Reply(
            text=text,
            tool_calls=list(calls),
            usage=usage,
            cost=0.0,
            seconds=time.monotonic() - start,
            model=self.name,
            finish_reason=finish,
        )


def append_record(path: Path, reply: Reply) -> None:
    """Append ``reply`` to a JSONL script file (the format :class:`ScriptedModel` reads)."""
    entry: dict[str, Any] = {"content": reply.text}
    if reply.tool_calls:
        entry["tool_calls"] = [c.to_dict() for c in reply.tool_calls]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        fh.flush()
