"""File-level localisation on SWE-bench dev issues: acc@1, acc@5, recall@5 per method.

    uv run --no-sync python benchmarks/localize/run.py ../shared/bench/localize_dev.jsonl \
        [--work /tmp/pw-localize] [--limit N] [--repos astroid,pvlib] [--semantic] [--tune]

Each issue's repository is materialised at ``base_commit`` from a bare mirror (the search
tool's ``fetch`` puts them under /work/.mirror/<owner>+<name>/repo; ``--mirrors`` changes
that) with ``git archive`` — only ``*.py`` files, into a temporary tree outside the project
that is deleted after use. One symbol cache per repository is shared across commits, so
files unchanged between commits are not reparsed. Per-issue rankings of every method are
cached in ``<work>/rankings.jsonl`` so fusion weights can be re-scored (``--tune``) without
re-indexing. Nothing fetched is written into the project.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from patchwright.index import RepoIndex, Weights
from patchwright.index.locate import fuse, is_test_path, ranked

METHODS = (
    "bm25", "bm25_file", "mentions", "identifiers", "stems", "literals", "pagerank", "semantic"
)  # fmt: skip


def materialise(mirror: Path, commit: str, dest: Path) -> None:
    """Extract the ``*.py`` files of ``commit`` into ``dest`` (mirrors may lack big blobs)."""
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.Popen(
        [
            "git",
            "--git-dir",
            str(mirror),
            "archive",
            "--format=tar",
            commit,
            "--",
            ":(glob)**/*.py",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,  # mirrors lack some large non-Python blobs: harmless
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {commit} failed in {mirror}")


def rankings_for(row: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Every method's file ranking for one issue (top 50 each)."""
    owner_name = row["repo"].replace("/", "+")
    mirror = Path(args.mirrors) / owner_name / "repo"
    tree = Path(args.work) / "trees" / f"{owner_name}-{row['base_commit'][:12]}"
    if tree.exists():
        shutil.rmtree(tree)
    materialise(mirror, row["base_commit"], tree)
    started = time.perf_counter()
    try:
        index = RepoIndex(
            tree,
            cache_dir=Path(args.work) / "cache" / owner_name,
            semantic=bool(args.semantic),
        )
        stats = index.update()
        per_method, _ = index.method_rankings(row["problem_statement"])
        index.close()
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return {
        "instance_id": row["instance_id"],
        "repo": row["repo"],
        "gold": row["gold_files"],
        "rankings": {m: [[p, round(s, 6)] for p, s in r[:50]] for m, r in per_method.items()},
        "seconds": round(time.perf_counter() - started, 2),
        "parsed": stats.parsed,
    }


def scores(order: list[str], gold: list[str]) -> tuple[float, float, float]:
    """acc@1, acc@5, recall@5 of one ranking."""
    top5 = order[:5]
    hit1 = float(bool(order) and order[0] in gold)
    hit5 = float(any(p in gold for p in top5))
    recall5 = len(set(top5) & set(gold)) / len(gold) if gold else 0.0
    return hit1, hit5, recall5


def evaluate(results: list[dict[str, Any]], weights: Weights) -> dict[str, dict[str, list[float]]]:
    """Per repository and overall: method → [acc@1, acc@5, recall@5, n]; a method with
    no ranking for an issue (e.g. PageRank when nothing is named) counts as a miss."""
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0] * 4))
    methods = [m for m in METHODS if any(m in r["rankings"] for r in results)]
    for res in results:
        # single methods are scored like the reference BM25: test files left out
        orders = {
            m: [p for p, _ in res["rankings"].get(m, []) if not is_test_path(p)] for m in methods
        }
        orders["fused"] = ranked(fuse(res["rankings"], weights))
        for group in (res["repo"], "overall"):
            for method, order in orders.items():
                acc = sums[group][method]
                for i, v in enumerate(scores(order, res["gold"])):
                    acc[i] += v
                acc[3] += 1
    return {g: {m: [v[0] / v[3], v[1] / v[3], v[2] / v[3], v[3]] for m, v in ms.items()}
            for g, ms in sums.items()}  # fmt: skip


GRID: dict[str, list[float]] = {
    "bm25": [0.0, 0.25, 0.5, 1.0, 2.0],
    "bm25_file": [0.0, 0.25, 0.5, 1.0, 2.0],
    "mentions": [0.0, 0.5, 1.0, 2.0, 4.0],
    "identifiers": [0.0, 0.25, 0.5, 1.0, 2.0],
    "pagerank": [0.0, 0.15, 0.3, 0.6, 1.0],
    "stems": [0.0, 0.25, 0.5, 1.0, 2.0],
    "literals": [0.0, 0.25, 0.5, 1.0, 2.0],
    "semantic": [0.0, 0.25, 0.5, 1.0, 2.0],
    "rrf_k": [1.0, 3.0, 10.0, 30.0, 60.0],
    "test_penalty": [0.05, 0.1, 0.3, 0.6],
    "aux_penalty": [0.05, 0.1, 0.3, 0.6, 1.0],
}


def objective(results: list[dict[str, Any]], weights: Weights) -> float:
    """What tuning maximises: overall fused acc@1 + acc@5 + recall@5."""
    a1, a5, r5, _ = evaluate(results, weights)["overall"]["fused"]
    return a1 + a5 + r5


def tune(results: list[dict[str, Any]], base: Weights, rounds: int = 3) -> Weights:
    """Coordinate ascent over ``GRID``: one weight at a time, the others held fixed."""
    best, best_score = base, objective(results, base)
    for _ in range(rounds):
        improved = False
        for name, values in GRID.items():
            for value in values:
                cand = replace(best, **{name: value})
                score = objective(results, cand)
                if score > best_score + 1e-9:
                    best, best_score, improved = cand, score, True
        if not improved:
            break
    return best


def cross_validate(results: list[dict[str, Any]], base: Weights) -> list[float]:
    """Two-fold estimate of tuned fusion on unseen issues (tune on one half, score the
    other, and the reverse): overall [acc@1, acc@5, recall@5, n]."""
    halves = [results[0::2], results[1::2]]
    totals = [0.0, 0.0, 0.0, 0.0]
    for train, test in ((halves[0], halves[1]), (halves[1], halves[0])):
        fold = evaluate(test, tune(train, base))["overall"]["fused"]
        for i in range(3):
            totals[i] += fold[i] * fold[3]
        totals[3] += fold[3]
    return [totals[0] / totals[3], totals[1] / totals[3], totals[2] / totals[3], totals[3]]


def report(table: dict[str, dict[str, list[float]]]) -> None:
    """Print one line per (group, method)."""
    print(f"{'group':32} {'method':12} {'acc@1':>6} {'acc@5':>6} {'rec@5':>6} {'n':>4}")
    for group in sorted(table, key=lambda g: (g == "overall", g)):
        for method, (a1, a5, r5, n) in table[group].items():
            print(f"{group:32} {method:12} {a1:6.3f} {a5:6.3f} {r5:6.3f} {int(n):4d}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="localize_dev.jsonl")
    parser.add_argument("--work", default="/tmp/pw-localize", help="trees, caches, rankings")
    parser.add_argument("--mirrors", default="/work/.mirror", help="bare git mirrors")
    parser.add_argument("--limit", type=int, default=0, help="first N usable issues only")
    parser.add_argument("--repos", default="", help="comma-separated repo name filters")
    parser.add_argument("--semantic", action="store_true", help="also run semantic search")
    parser.add_argument("--tune", action="store_true", help="grid-search fusion weights")
    parser.add_argument("--rerun", action="store_true", help="ignore cached rankings")
    args = parser.parse_args()

    rows = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line.strip()]
    mirrors = Path(args.mirrors)
    usable = [r for r in rows if (mirrors / r["repo"].replace("/", "+") / "repo").is_dir()]
    if args.repos:
        wanted = args.repos.split(",")
        usable = [r for r in usable if any(w in r["repo"] for w in wanted)]
    usable.sort(key=lambda r: (r["repo"], r["instance_id"]))
    if args.limit:
        usable = usable[:: max(1, len(usable) // args.limit)][: args.limit]
    print(f"{len(usable)} of {len(rows)} issues have a local mirror", file=sys.stderr)

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cache_file = work / ("rankings2-semantic.jsonl" if args.semantic else "rankings2.jsonl")
    cached: dict[str, dict[str, Any]] = {}
    if cache_file.exists() and not args.rerun:
        for line in cache_file.read_text().splitlines():
            item = json.loads(line)
            cached[item["instance_id"]] = item
    results = []
    started = time.perf_counter()
    with cache_file.open("a") as out:
        for n, row in enumerate(usable, 1):
            if row["instance_id"] not in cached:
                cached[row["instance_id"]] = rankings_for(row, args)
                out.write(json.dumps(cached[row["instance_id"]]) + "\n")
                out.flush()
                item = cached[row["instance_id"]]
                print(f"[{n}/{len(usable)}] {item['instance_id']} {item['seconds']}s "
                      f"({item['parsed']} parsed)", file=sys.stderr)  # fmt: skip
            results.append(cached[row["instance_id"]])
    weights = Weights()
    print(f"rankings ready in {time.perf_counter() - started:.0f}s", file=sys.stderr)
    if args.tune:
        cv = cross_validate(results, weights)
        weights = tune(results, weights)
        print(f"tuned weights: {asdict(weights)}")
        print(f"two-fold cross-validated fused: acc@1 {cv[0]:.3f} acc@5 {cv[1]:.3f} "
              f"recall@5 {cv[2]:.3f} (n={int(cv[3])})")  # fmt: skip
    report(evaluate(results, weights))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
