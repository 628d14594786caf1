"""A Conventional Commits message for a verified change, written by the model from the diff,
with a safe fallback when the model's answer is unusable."""

from __future__ import annotations

import re

from patchwright.agent.prompts import render
from patchwright.events import EventBus
from patchwright.llm import Model, ModelError

_CONVENTIONAL = re.compile(
    r"^(fix|feat|refactor|docs|test|chore|perf|style|build|ci)(\([\w./-]+\))?!?: \S.*$"
)


def fallback_message(task: str) -> str:
    words = " ".join(task.split())
    summary = _shorten(words, 67).rstrip(" .,;:")
    return f"fix: {summary}" if summary else "fix: apply patchwright change"


def clean_message(text: str) -> str | None:
    """The first conventional line of ``text`` (quotes, fences, bullets stripped), if any."""
    for raw in text.splitlines():
        line = raw.strip().strip("`\"'").lstrip("-* ").strip()
        if _CONVENTIONAL.match(line):
            return _shorten(line)
    return None


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
    bus: EventBus | None = None,
    max_diff_chars: int = 6000,
) -> str:
    prompt = render("commit", task=task, diff=diff[:max_diff_chars])
    try:
        reply = model.complete([{"role": "user", "content": prompt}], max_tokens=48)
    except ModelError:
        return fallback_message(task)
    if bus is not None:
        bus.emit(
            "model.reply",
            phase="commit-message",
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            cost=reply.cost,
            seconds=round(reply.seconds, 3),
        )
    return clean_message(reply.text) or fallback_message(task)
