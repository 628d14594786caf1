"""A Conventional Commits message for a verified change, written by the model from the diff,
with a safe fallback when the model's answer is unusable."""

from __future__ import annotations

import re

from patchwright.agent.prompts import render
from patchwright.llm import Model, ModelError

_CONVENTIONAL = re.compile(
    r"^(fix|feat|refactor|docs|test|chore|perf|style|build|ci)(\([\w./-]+\))?!?: \S.*$"
)


def fallback_message(task: str) -> str:
    words = " ".join(task.split())
    summary = words[:60].rstrip(" .,;:")
    return f"fix: {summary}" if summary else "fix: apply patchwright change"


def clean_message(text: str) -> str | None:
    """The first conventional line of ``text`` (quotes, fences, bullets stripped), if any."""
    for raw in text.splitlines():
        line = raw.strip().strip("`\"'").lstrip("-* ").strip()
        if _CONVENTIONAL.match(line):
            return line[:72].rstrip()
    return None


def write_commit_message(model: Model, task: str, diff: str, *, max_diff_chars: int = 6000) -> str:
    prompt = render("commit", task=task, diff=diff[:max_diff_chars])
    try:
        reply = model.complete([{"role": "user", "content": prompt}], max_tokens=48)
    except ModelError:
        return fallback_message(task)
    return clean_message(reply.text) or fallback_message(task)
