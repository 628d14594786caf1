"""Check the harness on a task set: each task materialised as the tools get it must FAIL the
judge, and with the row's gold solution written over it must PASS. Run it after
``setup_langs.sh`` (a toolchain or crate missing shows here, not as a tool's failure).

    python benchmarks/tasks/check_gold.py /work/shared/bench/humanevalfix_rust_dev.jsonl --limit 5
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from taskdefs import judge, load_tasks, materialise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", type=Path)
    parser.add_argument("--limit", type=int, default=10**6)
    parser.add_argument("--offset", type=int, default=0)
    args = parser.parse_args()
    wrong = 0
    for task in load_tasks(args.tasks)[args.offset : args.offset + args.limit]:
        started = time.monotonic()
        verdicts = []
        for gold in (False, True):
            with tempfile.TemporaryDirectory(prefix="gold-check-") as tmp:
                repo = Path(tmp)
                materialise(task, repo)
                for rel, text in task.gold.items() if gold else ():
                    (repo / rel).write_text(text)
                verdicts.append(judge(task, repo, timeout=120))
        ok = verdicts == [False, True]
        wrong += not ok
        print(
            f"{task.task_id:<24} stub {'passes!' if verdicts[0] else 'fails'}, "
            f"gold {'passes' if verdicts[1] else 'FAILS'}  ({time.monotonic() - started:.1f} s)"
        )
    print(f"{wrong} task(s) the harness cannot judge" if wrong else "every task judged as expected")
    raise SystemExit(1 if wrong else 0)


if __name__ == "__main__":
    main()
