"""Embedded-model speed on the calls of real runs, without and with prompt-lookup decoding.

Replays the model calls kept in task-benchmark records (``benchmarks/tasks/run.py
--keep-records DIR``): each call's prompt is the conversation as the run sent it (the
recorded replies included), so the calls and their order — and what the KV cache can
reuse between them — are the run's. Each task starts cold, as a fresh process would.
Prints, per mode: time to first token, generation tokens/s, the share of each prompt
that had to be prefilled (the rest came from the KV cache), and how many replies were
the same text with and without speculation.

    uv run --no-sync python benchmarks/llm/speculation.py .bench-cache/records-hef30-both \\
        [--limit 30] [--calls 2] [--json out.json]

Run it on a quiet machine: llama.cpp's threads slow down sharply under CPU contention.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from patchwright.llm.local import LocalModel, clear_cache, get_llama
from patchwright.llm.types import Message

BUDGET = 1024


def calls_of(trajectory: Path, limit: int) -> list[list[Message]]:
    """The prompts of a run's model calls: every assistant message's conversation up to
    it, from the latest system message (a refocus starts a conversation of its own)."""
    messages: list[Message] = json.loads(trajectory.read_text(encoding="utf-8"))["messages"]
    prompts: list[list[Message]] = []
    start = 0
    for i, message in enumerate(messages):
        if message["role"] == "system":
            start = i
        elif message["role"] == "assistant":
            prompts.append(messages[start:i])
    return prompts[:limit]


def trajectories(records: Path, limit: int) -> list[tuple[str, Path]]:
    found = sorted(records.glob("patchwright/*/*/trajectory.json"))
    return [(path.parts[-3], path) for path in found[:limit]]


def replay(
    tasks: list[tuple[str, Path]], calls: int, *, prompt_lookup: bool
) -> list[dict[str, Any]]:
    model = LocalModel("qwen2.5-coder-1.5b", prompt_lookup=prompt_lookup)
    model.complete([{"role": "user", "content": "hi"}], max_tokens=1)  # load outside timing
    rows: list[dict[str, Any]] = []
    for name, trajectory in tasks:
        get_llama(model.path(), 1, 32768).reset()
        for index, prompt in enumerate(calls_of(trajectory, calls)):
            started = time.monotonic()
            reply = model.complete(prompt, max_tokens=BUDGET, temperature=0.0)
            s = model.last
            rows.append({
                "task": name, "call": index, "prompt_tokens": s.prompt_tokens,
                "prefilled_tokens": s.prefilled_tokens, "completion_tokens": s.completion_tokens,
                "ttft_s": round(s.prefill_seconds, 3),
                "tok_per_s": round(s.completion_tokens / s.generate_seconds, 2)
                if s.generate_seconds > 0 else None,
                "drafted": s.drafted_tokens, "accepted": s.accepted_tokens,
                "wall_s": round(time.monotonic() - started, 3), "text": reply.text,
            })  # fmt: skip
            print(
                f"  {'on ' if prompt_lookup else 'off'} {name} call {index}: "
                f"{s.prompt_tokens} prompt ({s.prefilled_tokens} prefilled), "
                f"ttft {s.prefill_seconds:.1f}s, {s.completion_tokens} tokens at "
                f"{rows[-1]['tok_per_s']} tok/s, accepted {s.accepted_tokens}/{s.drafted_tokens}",
                flush=True,
            )
    clear_cache()
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    speeds = [r["tok_per_s"] for r in rows if r["tok_per_s"]]
    drafted = sum(r["drafted"] for r in rows)
    return {
        "calls": len(rows),
        "median_ttft_s": round(statistics.median(r["ttft_s"] for r in rows), 2),
        "median_tok_per_s": round(statistics.median(speeds), 1),
        "generated_tokens": sum(r["completion_tokens"] for r in rows),
        "prefilled_share": round(
            sum(r["prefilled_tokens"] for r in rows) / sum(r["prompt_tokens"] for r in rows), 3
        ),
        "median_prefilled_share_after_first": _median_share([r for r in rows if r["call"] > 0]),
        "accepted_share": round(sum(r["accepted"] for r in rows) / drafted, 3) if drafted else None,
        "wall_s": round(sum(r["wall_s"] for r in rows), 1),
    }


def _median_share(rows: list[dict[str, Any]]) -> float | None:
    shares = [r["prefilled_tokens"] / r["prompt_tokens"] for r in rows]
    return round(statistics.median(shares), 3) if shares else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("records", type=Path)
    parser.add_argument("--limit", type=int, default=30, help="tasks")
    parser.add_argument("--calls", type=int, default=2, help="calls per task, from its first")
    parser.add_argument("--json", type=Path, help="write every call's figures here")
    args = parser.parse_args()
    tasks = trajectories(args.records, args.limit)
    off = replay(tasks, args.calls, prompt_lookup=False)
    on = replay(tasks, args.calls, prompt_lookup=True)
    same = sum(a["text"] == b["text"] for a, b in zip(off, on, strict=True))
    result = {
        "tasks": len(tasks),
        "without": summary(off),
        "with_prompt_lookup": summary(on),
        "same_replies": f"{same}/{len(off)}",
    }
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps({**result, "calls": {"off": off, "on": on}}, indent=1))


if __name__ == "__main__":
    main()
