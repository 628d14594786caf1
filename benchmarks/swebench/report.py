"""Figures of a ``patchwright swebench`` output directory: outcomes (and how many the hidden
tests chose, ``--oracle-tests``), localisation acc@1 and acc@5 of the suspects (files and
functions), tokens, minutes per instance — and, given the ``eval`` report, resolved / total
with the reason for each failure.

    python benchmarks/swebench/report.py swebench-out [--eval swebench-out/predictions.eval.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any


def results(out: Path) -> list[dict[str, Any]]:
    found = [json.loads(p.read_text()) for p in sorted(out.glob("*/result.json"))]
    return sorted(found, key=lambda r: r["instance_id"])


def acc(ranks: list[int | None], k: int) -> float:
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    located = [r for r in rows if r.get("localisation")]
    files = [r["localisation"]["file_rank"] for r in located]
    functions = [r["localisation"]["function_rank"] for r in located]
    tokens = [r["prompt_tokens"] + r["completion_tokens"] for r in rows]
    return {
        "instances": len(rows),
        "oracle_tests": sum(bool(r.get("oracle_tests")) for r in rows),
        "outcomes": dict(Counter(r["outcome"] for r in rows)),
        "file_acc@1": round(acc(files, 1), 3),
        "file_acc@5": round(acc(files, 5), 3),
        "function_acc@1": round(acc(functions, 1), 3),
        "function_acc@5": round(acc(functions, 5), 3),
        "tokens_per_instance": round(statistics.mean(tokens)) if tokens else 0,
        "minutes_per_instance": round(statistics.mean(r["seconds"] for r in rows) / 60, 2)
        if rows
        else 0,
        "median_seconds": round(statistics.median(r["seconds"] for r in rows), 1) if rows else 0,
        "agent_steps_per_instance": round(statistics.mean(r.get("agent_steps", 0) for r in rows), 1)
        if rows
        else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="the swebench output directory")
    parser.add_argument("--eval", type=Path, help="the eval report (predictions.eval.json)")
    args = parser.parse_args()
    rows = results(args.out)
    for r in rows:
        loc = r.get("localisation") or {}
        print(f"{r['instance_id']:<40} {r['outcome']:<10} file@{loc.get('file_rank')} "
              f"fn@{loc.get('function_rank')} {r['seconds']:7.1f}s  {r['reason'][:90]}")  # fmt: skip
    print(json.dumps(summary(rows), indent=2))
    if any(r.get("oracle_tests") for r in rows):
        print("ORACLE TESTS: the hidden tests chose these predictions (--oracle-tests); "
              "not comparable with any leaderboard")  # fmt: skip
    if args.eval:
        graded = json.loads(args.eval.read_text())
        for g in graded:
            if not g["resolved"]:
                print(f"unresolved {g['instance_id']}: {g['reason'][:200]}")
        print(f"resolved {sum(g['resolved'] for g in graded)}/{len(graded)}")


if __name__ == "__main__":
    main()
