"""A Conventional Commits message for a verified change, written by the model from the diff,
with a safe fallback when the model's answer is unusable.

Where prompt tokens cost nothing (a local model, a self-hosted server) and the request that
made the change is at hand, the message is asked for as one more turn of that request: the
server's cache already holds it, so only the question is prefilled (an Exercism diff prompt
was ~800 tokens, ~11 s of prefill on two cores, on every solved task)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from patchwright.agent.prompts import render
from patchwright.llm import Message, Model, ModelError

_CONVENTIONAL = re.compile(
    r"^(fix|feat|refactor|docs|test|chore|perf|style|build|ci)(?:\(([\w./-]+)\))?!?: \S.*$"
)
_EXTENSION = re.compile(r"(?<=\w)\.[A-Za-z]\w{0,5}$")
# Shown to the model as the style to follow; a reply that copies it says nothing of the diff.
_EXAMPLE = "fix(parser): accept dates without a day"


def fallback_message(task: str) -> str:
    words = " ".join(task.split())
    summary = _shorten(words, 67).rstrip(" .,;:")
    return f"fix: {summary}" if summary else "fix: apply patchwright change"


def clean_message(text: str) -> str | None:
    """The first conventional line of ``text`` (quotes, fences, bullets stripped), if any."""
    for raw in text.splitlines():
        line = _unquote(raw.strip().lstrip("-* ").strip())
        match = _CONVENTIONAL.match(line)
        if match is None:
            continue
        if match.group(2):
            line = f"{match.group(1)}({_module_scope(match.group(2))}){line[match.end(2) + 1 :]}"
        return _shorten(line)
    return None


def _unquote(line: str) -> str:
    """Drop quotes or backticks around the whole line, keeping a quote that ends a summary
    (``add "Hello, World!"``)."""
    while len(line) >= 2 and line[0] == line[-1] and line[0] in "`\"'":
        line = line[1:-1].strip()
    return line


def _module_scope(scope: str) -> str:
    """``inventory/pricing.py`` reads better as ``pricing``: a scope names a module."""
    stem = _EXTENSION.sub("", scope.rstrip("/").rsplit("/", 1)[-1])
    return stem or scope


def task_gist(task: str, limit: int = 400) -> str:
    """The opening of a long task (an issue body, a spec): context for the summary, which
    the diff carries. On a small local model every prompt token costs ~20 ms."""
    words = " ".join(task.split())
    return words if len(words) <= limit else _shorten(words, limit) + " …"


def _shorten(line: str, limit: int = 72) -> str:
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-")


def write_commit_message(
    model: Model,
    task: str,
    diff: str,
    *,
    exchange: Sequence[Message] = (),
    max_diff_chars: int = 6000,
    max_task_chars: int = 400,
) -> str:
    """The model's one-line message for ``diff`` — as a turn after ``exchange`` (the request
    that made the change and its reply) when given and it fits, else from the diff."""
    messages = _after_exchange(model, exchange)
    if not messages:
        gist = task_gist(task, max_task_chars)
        prompt = render("commit", task=gist, diff=diff[:max_diff_chars], example=_EXAMPLE)
        messages = [{"role": "user", "content": prompt}]
    try:
        reply = model.complete(
            messages,
            max_tokens=_MAX_TOKENS,
            temperature=0.0,
            phase="commit-message",
        )
    except ModelError:
        return fallback_message(task)
    message = clean_message(reply.text)
    if message is None or message == _EXAMPLE:
        return fallback_message(task)
    return message


_MAX_TOKENS = 48


def _after_exchange(model: Model, exchange: Sequence[Message]) -> list[Message]:
    """``exchange`` and the question, when it ends in the reply and all fits the window."""
    if not exchange or exchange[-1].get("role") != "assistant":
        return []
    ask: Message = {"role": "user", "content": render("commit_turn", example=_EXAMPLE)}
    messages = [*exchange, ask]
    need = sum(model.count_tokens(str(m.get("content") or "")) + 8 for m in messages)
    return messages if need + _MAX_TOKENS <= model.context_window * 0.9 else []
