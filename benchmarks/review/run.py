"""Review benchmark: a model reviews a small real repository with planted defects.

    OMP_WAIT_POLICY=PASSIVE python benchmarks/review/run.py --iterations 8
    OMP_WAIT_POLICY=PASSIVE python benchmarks/review/run.py --fixture agenda --iterations 8
    python benchmarks/review/run.py --fixture agenda --check     # the fixture itself, no model

Two repositories (``--fixture``), each with its pytest suite, ruff and mypy configured:
``inventory`` (``fixture.py``: seven planted defects — three bugs its tests catch, two lint
errors, two type errors) and ``agenda`` (``agenda.py``: ten — four bugs, three lint errors,
three type errors, in modules that import each other, so fixing a signature sets off the
review's cascade). The repository is materialised in a temporary git repository and
``patchwright review --yes --json --focus bugs --iterations N`` runs on it (default model: the
embedded one; ``--review-arg`` passes more flags through). Then:

* **defects fixed** — each defect's own check holds at the end (its test passes, its lint
  rule or type error is gone) *and* the code it lives in is still there (a fix may not
  delete the function);
* **regressions** — for every accepted commit, tests that passed before it and fail after
  it, plus lint and type errors present at the end but not at the start (must be 0);
* **proposals** accepted, rejected by the gates, skipped, failed; **tokens and minutes per
  accepted change**.

Figures are printed and written to ``--out`` as JSON. ``--check`` runs no review: it proves
the fixture plants what it says (see ``judge.sanity``) and exits 1 if it does not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import agenda  # noqa: E402
import fixture  # noqa: E402
from judge import State, commit_regressions, git, materialise, new_static, sanity  # noqa: E402
from planted import Fixture  # noqa: E402

FIXTURES: dict[str, Fixture] = {f.name: f for f in (fixture.FIXTURE, agenda.FIXTURE)}


# -- running ------------------------------------------------------------------------------
def review(repo: Path, args: argparse.Namespace, log: Path) -> dict[str, object]:
    cmd = [sys.executable, "-m", "patchwright.cli", "review", "--repo", str(repo), "--yes",
           "--json", "--focus", "bugs", "--iterations", str(args.iterations),
           "--model", args.model, *args.review_arg]  # fmt: skip
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("w") as err:
        run = subprocess.run(cmd, cwd=PROJECT, stdout=subprocess.PIPE, stderr=err, text=True,
                             env=env, timeout=args.iterations * 900)  # fmt: skip
    lines = [x for x in run.stdout.splitlines() if x.strip()]
    if not lines:
        raise SystemExit(f"patchwright review printed nothing (exit {run.returncode}); see {log}")
    return dict(json.loads(lines[-1]))


def _count(summary: dict[str, object], key: str) -> int:
    value = summary.get(key) or []
    return len(value) if isinstance(value, list) else 0


def measure(args: argparse.Namespace) -> dict[str, object]:
    bench = FIXTURES[args.fixture]
    work = Path(tempfile.mkdtemp(prefix=f"review-bench-{bench.name}-"))
    repo = materialise(bench, work / bench.name)
    base = git(repo, "rev-parse", "HEAD").strip()
    start = State.of(repo, bench.package)
    started = time.monotonic()
    summary = review(repo, args, work / "review.log")
    minutes = (time.monotonic() - started) / 60
    end = State.of(repo, bench.package)
    fixes = {d.name: end.holds(repo, d) for d in bench.defects}
    accepted = summary["accepted"]
    assert isinstance(accepted, list)
    usage = summary.get("usage") or {}
    assert isinstance(usage, dict)
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    per = max(1, len(accepted))
    return {
        "fixture": bench.name,
        "model": args.model,
        "review_args": args.review_arg,
        "iterations": summary.get("iterations"),
        "outcome": summary.get("outcome"),
        "defects_fixed": sum(fixes.values()),
        "defects": len(bench.defects),
        "fixed": fixes,
        "regressions": commit_regressions(repo, base),
        "new_static_problems": new_static(start.lint + start.types, end.lint + end.types),
        "accepted": len(accepted),
        "rejected_by_gates": _count(summary, "rejected"),
        "skipped": _count(summary, "skipped"),
        "failed": _count(summary, "failed"),
        "clean": _count(summary, "clean"),
        "cascade_left": summary.get("cascade_left") or [],
        "edit_formats": summary.get("edit_formats") or {},  # kind/format -> status -> count
        "tokens": tokens,
        "tokens_per_accepted": round(tokens / per) if accepted else None,
        "minutes": round(minutes, 1),
        "minutes_per_accepted": round(minutes / per, 1) if accepted else None,
        "commits": [a.get("commit") for a in accepted if isinstance(a, dict)],
        "targets": [(a.get("target"), a.get("kind")) for a in accepted if isinstance(a, dict)],
        "workdir": str(work),
    }


def report(r: dict[str, object]) -> None:
    regressions = len(r["regressions"]) + len(r["new_static_problems"])  # type: ignore[arg-type]
    print(f"{r['fixture']}: model {r['model']}, {r['iterations']} iteration(s), "
          f"{r['minutes']} min ({r['outcome']})")  # fmt: skip
    print(f"defects fixed:            {r['defects_fixed']}/{r['defects']}")
    for name, ok in r["fixed"].items():  # type: ignore[attr-defined]
        print(f"  {'fixed' if ok else 'left '}  {name}")
    print(f"regressions introduced:   {regressions}")
    print(f"accepted changes:         {r['accepted']}")
    print(f"rejected by the gates:    {r['rejected_by_gates']}")
    print(f"skipped / failed / clean: {r['skipped']} / {r['failed']} / {r['clean']}")
    print(f"tokens per accepted:      {r['tokens_per_accepted']}")
    print(f"minutes per accepted:     {r['minutes_per_accepted']}")


def check(bench: Fixture) -> int:
    """The no-model sanity check of one fixture: 0 when it plants exactly what it says."""
    with tempfile.TemporaryDirectory(prefix=f"review-bench-check-{bench.name}-") as work:
        wrong = sanity(bench, Path(work))
    for line in wrong:
        print(f"{bench.name}: {line}")
    if not wrong:
        print(f"{bench.name}: consistent — {len(bench.defects)} defects, each caught where "
              "planted and each fixed by its hand fix alone")  # fmt: skip
    return 1 if wrong else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fixture", choices=sorted(FIXTURES), default="inventory")
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--review-arg", action="append", default=[],
                        help="one more argument for patchwright review (repeatable), e.g. "
                             "--review-arg=--edit-format-for --review-arg=tests=diff")  # fmt: skip
    parser.add_argument("--check", action="store_true",
                        help="check the fixture itself with no model, and exit")  # fmt: skip
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.check:
        raise SystemExit(check(FIXTURES[args.fixture]))
    out = args.out or HERE / f"results-{args.fixture}.json"
    result = measure(args)
    out.write_text(json.dumps(result, indent=2) + "\n")
    report(result)
    print(f"(details: {out}; the repository and the review's log: {result['workdir']})")


if __name__ == "__main__":
    main()
