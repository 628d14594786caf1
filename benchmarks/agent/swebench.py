"""Agent benchmark on SWE-bench: the same instances under both strategies, side by side.

    python benchmarks/agent/swebench.py /work/shared/bench/swebench_dev.jsonl \\
        --repos /work/repos --filter 'marshmallow|astroid-(1741|1616)$' --out bench-out

Runs ``patchwright swebench`` once with ``--strategy pipeline`` and once with ``--strategy
agent`` (each into ``OUT/<strategy>``; instances already predicted are skipped, so a cut run
resumes), then prints per strategy: verified (a candidate passed FAIL_TO_PASS and
PASS_TO_PASS in the instance's environment), outcomes, agent steps, tokens and the median
wall time per instance. Grade the predictions with ``patchwright swebench eval``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "swebench"))
from report import results, summary


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("instances", type=Path)
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--filter", default=None)
    parser.add_argument("--out", type=Path, default=Path("bench-out/agent-swebench"))
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--max-iter", type=int, default=1)
    parser.add_argument("--strategies", default="pipeline,agent")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    for strategy in args.strategies.split(","):
        out = args.out / strategy
        if not args.report_only:
            cmd = [sys.executable, "-m", "patchwright", "swebench", "--instances", str(args.instances),
                   "--repos", str(args.repos), "--model", args.model, "--strategy", strategy,
                   "--candidates", "1", "--max-iter", str(args.max_iter), "-o", str(out),
                   *(["--filter", args.filter] if args.filter else []),
                   *(["--workdir", str(args.workdir)] if args.workdir else [])]  # fmt: skip
            subprocess.run(cmd, check=False)
        rows = results(out)
        figures = summary(rows)
        verified = sum(1 for r in rows if r["outcome"] == "verified")
        print(f"=== strategy {strategy}: verified {verified}/{len(rows)}  "
              f"outcomes {figures['outcomes']}  tokens/instance {figures['tokens_per_instance']}  "
              f"agent steps/instance {figures['agent_steps_per_instance']}  "
              f"median wall {figures['median_seconds']} s  "
              f"file acc@5 {figures['file_acc@5']}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
