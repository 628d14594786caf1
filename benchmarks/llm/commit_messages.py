"""Commit-message benchmark: for the solved runs in a folder of run records (each holding a
``summary.json`` with the task and the diff, as ``benchmarks/tasks/run.py --keep-records``
leaves them), write the commit message again and print prompt tokens, seconds and the line.

    uv run --no-sync python benchmarks/llm/commit_messages.py RECORDS [--max-task-chars N]

``--max-task-chars 100000`` shows the task whole, as the prompt did before it was cut to its
opening. Run it on a quiet machine: llama.cpp's threads slow down sharply under contention.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from typing import Any

from patchwright.agent.task.commit_message import write_commit_message
from patchwright.llm import Model, Reply, make_model


class Kept:
    """The model, keeping every reply it gives (its usage and seconds)."""

    def __init__(self, model: Model) -> None:
        self.model, self.name, self.context_window = model, model.name, model.context_window
        self.replies: list[Reply] = []

    def complete(self, messages: Any, **kwargs: Any) -> Reply:
        reply = self.model.complete(messages, **kwargs)
        self.replies.append(reply)
        return reply

    def count_tokens(self, text: str) -> int:
        return self.model.count_tokens(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--max-task-chars", type=int, default=400)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    summaries = sorted(args.records.glob("*/*/summary.json"))
    runs = [json.loads(p.read_text()) for p in summaries]
    runs = [r for r in runs if r.get("diff")][: args.limit or None]
    raw = make_model(args.model)
    write_commit_message(raw, "warm up", "--- a/x\n+++ b/x\n")  # load once
    model = Kept(raw)
    for run in runs:
        message = write_commit_message(
            model, run["task"], run["diff"], max_task_chars=args.max_task_chars
        )
        reply = model.replies[-1]
        print(f"{reply.usage.prompt_tokens:5d} tok {reply.seconds:5.1f}s  {message}")
    replies = model.replies
    seconds = [r.seconds for r in replies]
    tokens = [r.usage.prompt_tokens for r in replies]
    print(
        f"{len(replies)} messages: median prompt {statistics.median(tokens):.0f} tokens, "
        f"median {statistics.median(seconds):.1f}s, total {sum(seconds):.0f}s"
    )


if __name__ == "__main__":
    main()
