"""Which way in solved each task: read patchwright's kept records (``run.py --keep-records``)
and print, per task, every attempt's way (the whole file, the corrected function, the
function rewritten, a fresh start), what each reply was (unchanged, no edits, applied) and
how verification judged it; then, per way, how many tasks reached it and how many it solved.

    python3 -m uv run --no-sync python benchmarks/tasks/ways.py .bench-cache/records-js

What it is for: deciding from records, not guesses, in which order the four attempts should
try the ways in (``agent/task/refocus.py``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Attempt:
    """One iteration: the way it was asked in and what came of it."""

    iteration: int
    way: str
    replies: list[str] = field(default_factory=list)  # each reply's kind: unchanged, applied…
    verdict: str = ""  # "passed", or why verification refused the change

    def render(self) -> str:
        replies = "→".join(self.replies) or "-"
        mark = "✓" if self.verdict == "passed" else "✗"
        return f"{self.way}[{replies}{mark}]"


def attempts(actions: list[dict[str, Any]]) -> list[Attempt]:
    """The attempts of one run's trajectory ``actions``, in order."""
    out: dict[int, Attempt] = {}
    way = "whole"
    for action in actions:
        n = int(action["iteration"])
        if "refocus" in action:
            way = str(action.get("way", "fix"))
        current = out.setdefault(n, Attempt(n, way))
        if "afresh" in action:
            current.way = f"{current.way}+afresh"
        elif "attempt" in action:
            current.replies.append(str(action["attempt"]))
        elif "gates" in action:
            current.verdict = str(action["gates"])
    return [out[n] for n in sorted(out)]


def read(records: Path) -> dict[str, list[Attempt]]:
    """Task id → its attempts, for each patchwright run kept under ``records``."""
    runs: dict[str, list[Attempt]] = {}
    for trajectory in sorted(records.glob("patchwright/*/*/trajectory.json")):
        task = trajectory.parent.parent.name
        runs[task] = attempts(json.loads(trajectory.read_text()).get("actions", []))
    return runs


def base_way(way: str) -> str:
    return way.split("+", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", type=Path, help="a run.py --keep-records folder")
    args = parser.parse_args()
    runs = read(args.records)
    reached: Counter[str] = Counter()
    solved: Counter[str] = Counter()
    first_unchanged: Counter[str] = Counter()
    for task, tries in runs.items():
        end = next((a for a in tries if a.verdict == "passed"), None)
        status = f"solved@{end.iteration}" if end else "failed"
        print(f"{task:20} {status:9} " + " ".join(a.render() for a in tries))
        for way in {base_way(a.way) for a in tries}:
            reached[way] += 1
        if end is not None:
            solved[base_way(end.way)] += 1
        if tries and tries[0].replies[:1] == ["unchanged"]:
            first_unchanged["solved" if end else "failed"] += 1
    print(f"\n{len(runs)} runs, {sum(solved.values())} solved")
    for way in ("whole", "fix", "rewrite"):
        print(f"  {way:8} reached by {reached[way]:3}, solved {solved[way]:3}")
    print(
        "  first reply unchanged: "
        f"{sum(first_unchanged.values())} runs, {first_unchanged['solved']} solved later"
    )


if __name__ == "__main__":
    main()
