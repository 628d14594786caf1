"""One set's figures from the rows of several runs: a set too long for one session is run
in parts (``--offset``), and some tasks again at a later commit.

    python benchmarks/tasks/combine.py ../shared/bench/humanevalfix_go_dev.jsonl \\
        benchmarks/results/hef-go.jsonl benchmarks/results/hef-go-offset9.jsonl ...

For each tool and task the row of the **last** file given that holds one is counted (name
the files oldest first, so a rerun replaces what it reran). Only the tasks every tool has a
row for are reported (``--all`` for every row), in the set's order, with how much of the set
that is and which versions the rows came from: parts run at different commits are not one
run, and the report says so rather than hide it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from report import TOOLS, report
from taskdefs import load_tasks
from versions import summary

Row = dict[str, Any]


def latest_rows(files: list[Path]) -> dict[tuple[str, str], Row]:
    """(tool, task) → the row of the last file holding one."""
    rows: dict[tuple[str, str], Row] = {}
    for path in files:
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows[(str(row.get("tool", "patchwright")), str(row["task_id"]))] = row
    return rows


def chosen(rows: dict[tuple[str, str], Row], ids: list[str], every: bool) -> list[Row]:
    """The rows to report, tool by tool in the set's order: those of the tasks every tool ran
    (or, with ``every``, all of them)."""
    tools = sorted({tool for tool, _ in rows}, key=lambda t: (t not in TOOLS, t))
    keep = [t for t in ids if every or all((tool, t) in rows for tool in tools)]
    return [rows[(tool, t)] for tool in tools for t in keep if (tool, t) in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", type=Path, help="the set's jsonl (for its order and size)")
    parser.add_argument("results", type=Path, nargs="+", help="result files, oldest first")
    parser.add_argument("--all", action="store_true", help="every row, not only common tasks")
    args = parser.parse_args()
    ids = [t.task_id for t in load_tasks(args.tasks)]
    rows = latest_rows(args.results)
    unknown = sorted({t for _, t in rows} - set(ids))
    if unknown:
        parser.error(f"rows for tasks not in {args.tasks.name}: {', '.join(unknown[:5])}")
    shown = chosen(rows, ids, args.all)
    tasks = len({r["task_id"] for r in shown})
    print(f"{args.tasks.name}: {tasks} of its {len(ids)} tasks, from {len(args.results)} files")
    print(f"versions: {summary(shown)}")
    report(shown)


if __name__ == "__main__":
    main()
