"""Agent benchmark: the same tasks under both strategies, side by side.

    python benchmarks/agent/run.py /work/shared/bench/humanevalfix_python.jsonl --limit 30

Runs ``benchmarks/tasks/run.py`` (user framing: tests in the repository, ``--test-cmd`` the
task's command) once with ``--strategy pipeline`` and once with ``--strategy agent``, then
prints solved, claimed-but-rejected, agent steps, tokens and median wall time of each. Results
resume from ``.bench-cache/`` like the task benchmark's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
TASKS = HERE.parents[1] / "tasks" / "run.py"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--max-iter", type=int, default=2)
    parser.add_argument("--strategies", default="pipeline,agent")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    for strategy in args.strategies.split(","):
        print(f"=== strategy {strategy}", flush=True)
        cmd = [sys.executable, str(TASKS), str(args.tasks), "--limit", str(args.limit),
               "--model", args.model, "--max-iter", str(args.max_iter), "--framing", "user",
               "--strategy", strategy, *(["--report-only"] if args.report_only else [])]  # fmt: skip
        subprocess.run(cmd, check=False)


if __name__ == "__main__":
    main()
