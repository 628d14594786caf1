"""Embedded-model benchmark: prefill and generation speed, and what KV-cache prefix reuse
saves over a 5-turn conversation (tokens prefilled and wall time, with vs without reuse).

    uv run --no-sync python benchmarks/llm/run.py [--model local:qwen2.5-coder-1.5b]

Run it on a quiet machine: llama.cpp's threads slow down sharply under CPU contention.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from patchwright.llm.local import LocalModel, clear_cache, get_llama, physical_cores
from patchwright.llm.types import Message

CODE = '''
def parse_duration(text: str) -> int:
    """Parse '1h30m', '45s', '2m' into seconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    total, number = 0, ""
    for ch in text.strip():
        if ch.isdigit():
            number += ch
        elif ch in units and number:
            total += int(number) * units[ch]
            number = ""
        else:
            raise ValueError(f"bad duration: {text!r}")
    if number:
        raise ValueError(f"missing unit in {text!r}")
    return total


class RateLimiter:
    def __init__(self, per_second: float) -> None:
        self.interval = 1.0 / per_second
        self.last = 0.0

    def wait(self, now: float) -> float:
        delay = max(0.0, self.last + self.interval - now)
        self.last = now + delay
        return delay
'''

SYSTEM = "You are a careful Python engineer. Answer briefly. The repository contains:\n" + CODE * 3
TURNS = [
    "What does parse_duration return for '1h30m'?",
    "What happens with '10'?",
    "Suggest a one-line docstring for RateLimiter.",
    "Is RateLimiter thread-safe? One sentence.",
    "Name one test case for parse_duration.",
]


def conversation(model: LocalModel, *, reuse: bool, max_tokens: int) -> dict[str, Any]:
    messages: list[Message] = [{"role": "system", "content": SYSTEM}]
    prefilled = prompt_total = 0
    get_llama(model.path(), 1, 32768).reset()  # both runs start cold
    start = time.monotonic()
    for turn in TURNS:
        messages.append({"role": "user", "content": turn})
        if not reuse:  # forget the KV cache: every call prefills its whole prompt
            get_llama(model.path(), 1, 32768).reset()
        reply = model.complete(messages, max_tokens=max_tokens, temperature=0.0)
        prefilled += model.last.prefilled_tokens
        prompt_total += model.last.prompt_tokens
        messages.append(reply.as_message())
    return {
        "prompt_tokens": prompt_total,
        "prefilled_tokens": prefilled,
        "seconds": round(time.monotonic() - start, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--max-tokens", type=int, default=32)
    args = parser.parse_args()
    name = args.model.removeprefix("local:")
    model = LocalModel(name)
    load_start = time.monotonic()
    model.complete([{"role": "user", "content": "hi"}], max_tokens=1)  # load + warm up
    load_seconds = time.monotonic() - load_start

    # speed: one cold call with a long prompt and a fixed reply budget
    get_llama(model.path(), 1, 32768).reset()
    msgs: list[Message] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Write a docstring-free test module for this code."},
    ]
    model.complete(msgs, max_tokens=64, temperature=0.0)
    s = model.last
    speed = {
        "prompt_tokens": s.prompt_tokens,
        "prefill_tok_per_s": round(s.prompt_tokens / s.prefill_seconds, 1),
        "completion_tokens": s.completion_tokens,
        "generation_tok_per_s": round(max(0, s.completion_tokens - 1) / s.generate_seconds, 1)
        if s.generate_seconds > 0
        else None,
    }
    with_reuse = conversation(model, reuse=True, max_tokens=args.max_tokens)
    without = conversation(model, reuse=False, max_tokens=args.max_tokens)
    result = {
        "model": args.model,
        "weights": model.weights.describe() if model.weights else None,
        "threads": physical_cores(),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "load_seconds": round(load_seconds, 2),
        "speed": speed,
        "five_turns": {
            "with_reuse": with_reuse,
            "without_reuse": without,
            "prefill_saved_tokens": without["prefilled_tokens"] - with_reuse["prefilled_tokens"],
            "wall_time_ratio": round(without["seconds"] / with_reuse["seconds"], 2),
        },
    }
    clear_cache()
    print(
        f"{args.model}: prefill {speed['prefill_tok_per_s']} tok/s "
        f"({s.prompt_tokens} tokens), generation {speed['generation_tok_per_s']} tok/s"
    )
    print(
        f"5-turn conversation: prefilled {with_reuse['prefilled_tokens']} tokens in "
        f"{with_reuse['seconds']}s with prefix reuse vs {without['prefilled_tokens']} tokens in "
        f"{without['seconds']}s without (prompt tokens sent: {with_reuse['prompt_tokens']})"
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
