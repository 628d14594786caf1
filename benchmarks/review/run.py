"""Review benchmark: a model reviews a small real repository with planted defects.

    OMP_WAIT_POLICY=PASSIVE python benchmarks/review/run.py --iterations 8

The repository (``fixture.py``: an inventory library, its pytest suite, ruff and mypy
configured) carries seven planted defects: two lint errors, two type errors and three bugs its
tests catch. It is materialised in a temporary git repository and ``patchwright review --yes
--json --focus bugs --iterations N`` runs on it (default model: the embedded one). Then:

* **defects fixed** — each defect's own check holds at the end (its test passes, its lint
  rule or type error is gone) *and* the code it lives in is still there (a fix may not
  delete the function);
* **regressions** — for every accepted commit, tests that passed before it and fail after
  it, plus lint and type errors present at the end but not at the start (must be 0);
* **proposals** accepted, rejected by the gates, skipped, failed; **tokens and minutes per
  accepted change**.

Figures are printed and written to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from fixture import FILES  # noqa: E402


@dataclass(frozen=True)
class Defect:
    name: str
    kind: str  # test | lint | types
    path: str  # the file it is planted in
    check: str  # the test id, the ruff code, or the mypy message that must be gone
    keep: str  # the definition that must still exist


DEFECTS = [
    Defect("Item.value adds instead of multiplying", "test", "inventory/items.py",
           "tests/test_items.py::test_value", "value"),
    Defect("restock adds one unit too few", "test", "inventory/stock.py",
           "tests/test_stock.py::test_restock", "restock"),
    Defect("low_stock keeps the well-stocked items", "test", "inventory/stock.py",
           "tests/test_stock.py::test_low_stock", "low_stock"),
    Defect("is_missing compares to None with ==", "lint", "inventory/items.py", "E711",
           "is_missing"),
    Defect("stock imports os and never uses it", "lint", "inventory/stock.py", "F401",
           "restock"),
    Defect("count_units returns a str", "types", "inventory/report.py",
           'got "str", expected "int"', "count_units"),
    Defect("average_price returns None", "types", "inventory/report.py",
           'got "None", expected "float"', "average_price"),
]  # fmt: skip


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args]
    return subprocess.run(cmd, cwd=repo, capture_output=True, text=True, check=True).stdout


def materialise(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "inventory with planted defects")
    return root


# -- judging ------------------------------------------------------------------------------
def test_outcomes(repo: Path) -> dict[str, str]:
    """Each test's outcome (``-rA`` summary lines) on the tree at ``repo``."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider"],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    found = re.findall(r"^(PASSED|FAILED|ERROR) (\S+)", run.stdout, re.M)
    return {test: outcome for outcome, test in found}


def lint_problems(repo: Path) -> list[tuple[str, str]]:
    run = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json", "."],
        cwd=repo, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    items = json.loads(run.stdout or "[]")
    return [(Path(i["filename"]).resolve().relative_to(repo.resolve()).as_posix(), i["code"])
            for i in items]  # fmt: skip


def type_problems(repo: Path) -> list[tuple[str, str]]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--no-error-summary", "inventory"],
        cwd=repo, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    found = re.findall(r"^([^:\n]+):\d+: error: (.*)$", run.stdout, re.M)
    return [(path, re.sub(r"\s+\[[\w-]+\]$", "", msg)) for path, msg in found]


def defines(repo: Path, path: str, name: str) -> bool:
    try:
        tree = ast.parse((repo / path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError):
        return False
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(n, kinds) and n.name == name for n in ast.walk(tree))


def fixed(repo: Path, defect: Defect, tests: dict[str, str], lint: list[tuple[str, str]],
          types: list[tuple[str, str]]) -> bool:  # fmt: skip
    if not defines(repo, defect.path, defect.keep):
        return False
    if defect.kind == "test":
        return tests.get(defect.check) == "PASSED"
    if defect.kind == "lint":
        return (defect.path, defect.check) not in lint
    return not any(p == defect.path and defect.check in m for p, m in types)


def commit_regressions(repo: Path, base: str) -> list[dict[str, object]]:
    """For each commit after ``base``: tests that passed at its parent and fail at it."""
    found = []
    commits = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    scratch = Path(tempfile.mkdtemp(prefix="review-bench-wt-"))
    try:
        before = _outcomes_at(repo, base, scratch / "base")
        for i, sha in enumerate(commits):
            after = _outcomes_at(repo, sha, scratch / f"c{i}")
            broke = sorted(
                t for t, o in after.items() if o != "PASSED" and before.get(t) == "PASSED"
            )
            if broke:
                found.append({"commit": sha[:12], "tests": broke})
            before = after
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        git(repo, "worktree", "prune")
    return found


def _outcomes_at(repo: Path, sha: str, where: Path) -> dict[str, str]:
    git(repo, "worktree", "add", "-q", "--detach", str(where), sha)
    try:
        return test_outcomes(where)
    finally:
        git(repo, "worktree", "remove", "--force", str(where))


def new_static(before: list[tuple[str, str]], after: list[tuple[str, str]]) -> list[str]:
    extra = Counter(after) - Counter(before)
    return sorted(f"{path}: {what}" for (path, what), n in extra.items() for _ in range(n))


# -- running ------------------------------------------------------------------------------
def review(repo: Path, args: argparse.Namespace, log: Path) -> dict[str, object]:
    cmd = [sys.executable, "-m", "patchwright.cli", "review", "--repo", str(repo), "--yes",
           "--json", "--focus", "bugs", "--iterations", str(args.iterations),
           "--model", args.model]  # fmt: skip
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("w") as err:
        run = subprocess.run(cmd, cwd=PROJECT, stdout=subprocess.PIPE, stderr=err, text=True,
                             env=env, timeout=args.iterations * 900)  # fmt: skip
    lines = [x for x in run.stdout.splitlines() if x.strip()]
    if not lines:
        raise SystemExit(f"patchwright review printed nothing (exit {run.returncode}); see {log}")
    return dict(json.loads(lines[-1]))


def measure(args: argparse.Namespace) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="review-bench-"))
    repo = materialise(work / "inventory")
    base = git(repo, "rev-parse", "HEAD").strip()
    lint0, types0 = lint_problems(repo), type_problems(repo)
    started = time.monotonic()
    summary = review(repo, args, work / "review.log")
    minutes = (time.monotonic() - started) / 60
    tests = test_outcomes(repo)
    lint, types = lint_problems(repo), type_problems(repo)
    fixes = {d.name: fixed(repo, d, tests, lint, types) for d in DEFECTS}
    accepted = summary["accepted"]
    assert isinstance(accepted, list)
    usage = summary.get("usage") or {}
    assert isinstance(usage, dict)
    tokens = int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
    per = max(1, len(accepted))
    result: dict[str, object] = {
        "model": args.model,
        "iterations": summary.get("iterations"),
        "outcome": summary.get("outcome"),
        "defects_fixed": sum(fixes.values()),
        "defects": len(DEFECTS),
        "fixed": fixes,
        "regressions": commit_regressions(repo, base),
        "new_static_problems": new_static(lint0 + types0, lint + types),
        "accepted": len(accepted),
        "rejected_by_gates": len(summary.get("rejected") or []),  # type: ignore[arg-type]
        "skipped": len(summary.get("skipped") or []),  # type: ignore[arg-type]
        "failed": len(summary.get("failed") or []),  # type: ignore[arg-type]
        "clean": len(summary.get("clean") or []),  # type: ignore[arg-type]
        "tokens": tokens,
        "tokens_per_accepted": round(tokens / per) if accepted else None,
        "minutes": round(minutes, 1),
        "minutes_per_accepted": round(minutes / per, 1) if accepted else None,
        "commits": [a.get("commit") for a in accepted if isinstance(a, dict)],
        "targets": [(a.get("target"), a.get("kind")) for a in accepted if isinstance(a, dict)],
        "workdir": str(work),
    }
    return result


def report(r: dict[str, object]) -> None:
    regressions = len(r["regressions"]) + len(r["new_static_problems"])  # type: ignore[arg-type]
    print(
        f"model {r['model']}, {r['iterations']} iteration(s), {r['minutes']} min ({r['outcome']})"
    )
    print(f"defects fixed:            {r['defects_fixed']}/{r['defects']}")
    for name, ok in r["fixed"].items():  # type: ignore[attr-defined]
        print(f"  {'fixed' if ok else 'left '}  {name}")
    print(f"regressions introduced:   {regressions}")
    print(f"accepted changes:         {r['accepted']}")
    print(f"rejected by the gates:    {r['rejected_by_gates']}")
    print(f"skipped / failed / clean: {r['skipped']} / {r['failed']} / {r['clean']}")
    print(f"tokens per accepted:      {r['tokens_per_accepted']}")
    print(f"minutes per accepted:     {r['minutes_per_accepted']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args()
    result = measure(args)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    report(result)
    print(f"(details: {args.out}; the repository and the review's log: {result['workdir']})")


if __name__ == "__main__":
    main()
