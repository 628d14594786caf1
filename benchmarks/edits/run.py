"""Run the edit engine over the corpus (and the shared smoke cases) and print its figures.

    uv run --no-sync python benchmarks/edits/build_corpus.py      # once
    uv run --no-sync python benchmarks/edits/run.py [--corpus FILE] [--cases DIR]

Per case: resolve the path as written (the real package tree is the repository), apply
the block in memory and compare with the ground truth. Outcomes: ``correct`` (exactly
the expected file), ``wrong_place`` (a line outside the cut slice changed, or the wrong
file), ``wrong_content`` (right place, different text), ``refused`` (the engine said no).
"""

from __future__ import annotations

import argparse
import difflib
import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from patchwright.edits import (
    Edit,
    EditError,
    PathResolutionError,
    apply_edits,
    pick_by_content,
    resolve_path,
)

DEFAULT_CORPUS = Path("/tmp/patchwright-edit-corpus.jsonl")
DEFAULT_CASES = Path(__file__).resolve().parents[3] / "shared" / "bench" / "edit_cases"
OUTCOMES = ("correct", "wrong_place", "wrong_content", "refused")


def _pct(n: int, total: int) -> str:
    return f"{100.0 * n / total:6.2f}%" if total else "   n/a"


def _outside(original: list[str], new: list[str], start: int, end: int) -> bool:
    tail = len(original) - end
    return new[:start] != original[:start] or new[len(new) - tail :] != original[end:]


@dataclass
class _Verdict:
    result: str
    strategy: str
    wall_us: float | None = None
    cpu_us: float | None = None
    restored: bool = False


@dataclass
class _Repos:
    """File listings and texts of the package trees the corpus was cut from (read once)."""

    listings: dict[str, list[str]] = field(default_factory=dict)
    texts: dict[tuple[str, str], str] = field(default_factory=dict)

    def files(self, root: str) -> list[str]:
        if root not in self.listings:
            found = Path(root).rglob("*.py")
            self.listings[root] = sorted(p.relative_to(root).as_posix() for p in found)
        return self.listings[root]

    def text(self, root: str, path: str) -> str:
        if (root, path) not in self.texts:
            self.texts[root, path] = (Path(root) / path).read_text(encoding="utf-8")
        return self.texts[root, path]


def _resolve(case: dict[str, Any], repos: _Repos) -> str | None:
    root = case["root"]
    edit = Edit(case["raw_path"], "replace", case["search"], case["replace"], "bench")
    try:
        return resolve_path(case["raw_path"], repos.files(root), must_exist=True)
    except PathResolutionError as exc:  # ambiguous: pick the one file the SEARCH fits
        texts = {c: repos.text(root, c) for c in exc.candidates[:10]}
        return pick_by_content(edit, texts)
    except EditError:
        return None


def _evaluate(case: dict[str, Any], repos: _Repos) -> _Verdict:
    """Resolve and apply one block as the engine would; compare with the ground truth."""
    text = repos.text(case["root"], case["path"])
    original = text.split("\n")
    expected = "\n".join([*original[: case["start"]], *case["new_lines"], *original[case["end"] :]])
    if case["crlf_file"]:
        text, expected = text.replace("\n", "\r\n"), expected.replace("\n", "\r\n")
    t0, c0 = time.perf_counter(), time.process_time()
    resolved = _resolve(case, repos)
    if resolved is None:
        return _Verdict("refused", "path")
    if resolved != case["path"]:
        return _Verdict("wrong_place", "path")
    edit = Edit(resolved, "replace", case["search"], case["replace"], "bench")
    out = apply_edits([edit], {resolved: text})
    wall, cpu = (time.perf_counter() - t0) * 1e6, (time.process_time() - c0) * 1e6
    strategy = out.results[0].strategy or out.results[0].status
    if not out.ok:
        return _Verdict("refused", strategy, wall, cpu)
    got = _without_restored(out.new_texts.get(resolved, text) or "", out.notes)
    if got == expected:
        result = "correct"
    elif _outside(original, got.replace("\r\n", "\n").split("\n"), case["start"], case["end"]):
        result = "wrong_place"
    else:
        result = "wrong_content"
    return _Verdict(result, strategy, wall, cpu, bool(out.notes))


def run_corpus(path: Path) -> None:
    cases = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    repos = _Repos()
    outcome: Counter[str] = Counter()
    by_strategy: dict[str, Counter[str]] = defaultdict(Counter)
    by_defect: dict[str, Counter[str]] = defaultdict(Counter)
    wall: list[float] = []
    cpu: list[float] = []
    bad: list[str] = []
    restored = 0
    for case in cases:
        v = _evaluate(case, repos)
        outcome[v.result] += 1
        by_strategy[v.strategy][v.result] += 1
        for d in case["defects"] or ["none"]:
            by_defect[d][v.result] += 1
        wall += [v.wall_us] if v.wall_us is not None else []
        cpu += [v.cpu_us] if v.cpu_us is not None else []
        restored += v.restored
        if v.result != "correct":
            what = f"{case['path']} {case['defects']} {case['change']}"
            bad.append(f"  #{case['id']} {what}: {v.result} ({v.strategy})")
    total = len(cases)
    print(f"corpus: {path} ({total} blocks)")
    for name in OUTCOMES:
        print(f"  {name:<14} {outcome[name]:5d}  {_pct(outcome[name], total)}")
    _timings(wall, cpu)
    _table("by strategy", by_strategy.items())
    _table("by defect", sorted(by_defect.items()))
    print(f"  (blocks whose removed-but-used imports were restored: {restored})")
    if bad:
        print("not correct:")
        print("\n".join(bad))


def _timings(wall: list[float], cpu: list[float]) -> None:
    for label, values in (("wall", wall), ("cpu", cpu)):
        if values:
            values.sort()
            mean = sum(values) / len(values)
            print(f"  time per block ({label}, path resolution + matching): mean {mean:.0f} µs, "
                  f"median {values[len(values) // 2]:.0f} µs, "
                  f"p95 {values[int(len(values) * 0.95)]:.0f} µs")  # fmt: skip


def _without_restored(text: str, notes: list[str]) -> str:
    """Drop import lines the engine restored (its notes name them) to compare with the truth."""
    if not notes:
        return text
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(nl)
    for note in notes:
        if ": restored " not in note:
            continue
        for stmt in note.split(": restored ", 1)[1].rsplit(" (", 1)[0].split("; "):
            if stmt in lines:
                lines.remove(stmt)
    return nl.join(lines)


def _table(title: str, rows: Iterable[tuple[str, Counter[str]]]) -> None:
    print(f"{title}:")
    print(f"  {'':<24}{'n':>5}  " + "  ".join(f"{o:>13}" for o in OUTCOMES))
    for name, counts in sorted(rows, key=lambda r: -sum(r[1].values())):
        n = sum(counts.values())
        cells = "  ".join(f"{_pct(counts[o], n):>13}" for o in OUTCOMES)
        print(f"  {name:<24}{n:5d}  {cells}")


def _changed(a: list[str], b: list[str]) -> set[int]:
    out: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.update(range(i1, max(i2, i1 + 1)))
    return out


def run_cases(folder: Path) -> None:
    files = sorted(folder.glob("*.json"))
    if not files:
        print(f"smoke cases: none found in {folder}")
        return
    outcome: Counter[str] = Counter()
    lines: list[str] = []
    for f in files:
        case = json.loads(f.read_text(encoding="utf-8"))
        original = case["original"].replace("\r\n", "\n")
        crlf = "\r\n" in case["original"]
        edit = Edit(
            "f", "replace", case["llm_edit"]["old_text"], case["llm_edit"]["new_text"], "bench"
        )
        out = apply_edits([edit], {"f": original})
        strategy = out.results[0].strategy or out.results[0].status
        if not out.ok:
            result = "refused"
        else:
            got = out.new_texts.get("f", original)
            got = got.replace("\n", "\r\n") if crlf else got
            expected = case["expected"]
            if got.rstrip() == expected.rstrip():
                result = "as_expected"
            else:
                a, g, e = (
                    original.split("\n"),
                    got.replace("\r\n", "\n").split("\n"),
                    expected.replace("\r\n", "\n").split("\n"),
                )
                ours, theirs = _changed(a, g), _changed(a, e)
                result = "wrong_place" if ours and theirs and not ours & theirs else "differs"
        outcome[result] += 1
        lines.append(f"  {f.stem[:58]:<58} {case.get('category', '?'):<20} {result:<12} {strategy}")
    print(
        f"\nsmoke cases: {folder} ({len(files)} cases; 'expected' sometimes reformats or merges stale context)"
    )
    for name in ("as_expected", "differs", "wrong_place", "refused"):
        print(f"  {name:<12} {outcome[name]:3d}  {_pct(outcome[name], len(files))}")
    print("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description="patchwright edit-engine benchmark")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    args = ap.parse_args()
    if args.corpus.exists():
        run_corpus(args.corpus)
    else:
        print(f"no corpus at {args.corpus}: run benchmarks/edits/build_corpus.py first")
    run_cases(args.cases)


if __name__ == "__main__":
    main()
