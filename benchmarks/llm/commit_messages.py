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

from patchwright.agent.task.commit_message import write_commit_message
from patchwright.events import Event, EventBus
from patchwright.llm import make_model


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
    model = make_model(args.model)
    replies: list[Event] = []
    bus = EventBus()
    bus.subscribe(replies.append)
    write_commit_message(model, "warm up", "--- a/x\n+++ b/x\n", bus=EventBus())  # load once
    for run in runs:
        message = write_commit_message(
            model, run["task"], run["diff"], bus=bus, max_task_chars=args.max_task_chars
        )
        reply = replies[-1].data
        print(f"{reply['prompt_tokens']:5d} tok {reply['seconds']:5.1f}s  {message}")
    seconds = [e.data["seconds"] for e in replies]
    tokens = [e.data["prompt_tokens"] for e in replies]
    print(
        f"{len(replies)} messages: median prompt {statistics.median(tokens):.0f} tokens, "
        f"median {statistics.median(seconds):.1f}s, total {sum(seconds):.0f}s"
    )


if __name__ == "__main__":
    main()
