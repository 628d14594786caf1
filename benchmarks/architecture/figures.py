"""Figures of the code's shape, for the architecture issue: import circles between modules,
the largest folders, ``Any`` in ``src/``, test lines per source line (overall and per
package), and modules and functions over the size limits.

    python benchmarks/architecture/figures.py [--root .]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

import grimp


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def import_cycles(package: str, *, typing_too: bool) -> list[list[str]]:
    """Strongly connected groups (size > 1) of the module import graph; with ``typing_too``
    the ``if TYPE_CHECKING`` imports count as well (they never run, but a reader follows
    them)."""
    # no cache: grimp keeps one cache for both variants, and the second read stale edges
    graph = grimp.build_graph(package, exclude_type_checking_imports=not typing_too, cache_dir=None)
    modules = sorted(graph.modules)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for m in modules:
        if m not in index:
            visit(m)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=Path(__file__).parents[2])
    root = parser.parse_args().root.resolve()
    sys.path.insert(0, str(root / "src"))
    src, tests = root / "src" / "patchwright", root / "tests"
    for typing_too in (False, True):
        cycles = import_cycles("patchwright", typing_too=typing_too)
        what = "runtime and TYPE_CHECKING imports" if typing_too else "runtime imports"
        print(f"import circles between modules ({what}): {len(cycles)}")
        for group in cycles:
            print("  " + " <-> ".join(m.removeprefix("patchwright.") for m in group))
    folders = Counter(p.parent.relative_to(src).as_posix() for p in src.rglob("*.py"))
    print(
        "largest folders (files): "
        + ", ".join(f"{f or '.'} {n}" for f, n in folders.most_common(5))
    )
    any_count = sum(
        len(re.findall(r"\bAny\b", p.read_text(encoding="utf-8"))) for p in src.rglob("*.py")
    )
    print(f"Any in src/: {any_count}")
    src_lines = sum(_lines(p) for p in src.rglob("*.py"))
    test_lines = sum(_lines(p) for p in tests.rglob("*.py"))
    print(
        f"source lines {src_lines}, test lines {test_lines}: {test_lines / src_lines:.2f} test lines per source line"
    )
    for pkg in sorted(p.name for p in src.iterdir() if p.is_dir() and p.name != "__pycache__"):
        s = sum(_lines(p) for p in (src / pkg).rglob("*.py"))
        t = sum(_lines(p) for p in (tests / pkg).rglob("*.py")) if (tests / pkg).is_dir() else 0
        print(f"  {pkg:10} {s:6} source, {t:6} test lines: {t / max(s, 1):.2f}")
    big = [(p, _lines(p)) for p in src.rglob("*.py")]
    print(
        "modules over 400 lines: "
        + (", ".join(f"{p.relative_to(src)} {n}" for p, n in big if n > 400) or "none")
    )
    long_functions = []
    for p in src.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60:
                    long_functions.append(f"{p.relative_to(src)}:{node.name} {length}")
    print(
        f"functions over 60 lines: {len(long_functions)}"
        + ("" if not long_functions else " (" + ", ".join(long_functions) + ")")
    )


if __name__ == "__main__":
    main()
