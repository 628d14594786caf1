"""Index speed on a large real repository: cold, warm, one-file change, map, search.

    uv run --no-sync python benchmarks/index/run.py SOURCE_DIR [--work /tmp/pw-index-bench]

SOURCE_DIR is any source tree available offline, e.g. an unpacked sdist:
``python -m pip download --no-deps --no-binary :all: django==5.1.4 -d /tmp/src`` then
``tar xzf``. It is copied into a fresh git repository under ``--work`` (outside the
project), so the run never touches the source and the cache starts empty.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from patchwright.index import RepoIndex

T = TypeVar("T")


def timed(label: str, fn: Callable[[], T]) -> tuple[T, float]:
    """Run ``fn``, print and return its wall time."""
    started = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - started
    print(f"{label:44} {seconds:8.3f} s")
    return value, seconds


def prepare(source: Path, work: Path) -> Path:
    """A fresh git repository holding a copy of ``source``."""
    repo = work / "repo"
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, repo, symlinks=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}  # fmt: skip
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "src"]):
        subprocess.run(cmd, cwd=repo, check=True, env=env, capture_output=True)
    # age the files so the racy-mtime guard does not force rehashing on the warm run
    stamp = time.time() - 120
    for path in repo.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            os.utime(path, (stamp, stamp))
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="source tree to index (copied first)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/pw-index-bench"))
    args = parser.parse_args()
    repo = prepare(args.source.resolve(), args.work)

    index = RepoIndex(repo)
    stats, cold = timed("cold index", index.update)
    code_files = sum(stats.languages.values())
    print(f"  {stats.files} files ({code_files} with a grammar), {stats.definitions} definitions;"
          f" {stats.files / cold:.0f} files/s, {code_files / cold:.0f} code files/s")  # fmt: skip
    index.close()

    index = RepoIndex(repo)
    warm, _ = timed("warm re-index, no change (new instance)", index.update)
    assert warm.parsed == 0, warm.parsed_paths[:5]

    python_files = sorted(p for p, fs in index.symbols.items() if fs.language == "python")
    target = python_files[len(python_files) // 2]
    with (repo / target).open("a") as handle:
        handle.write("\n\ndef benchmark_added_function(value):\n    return value\n")
    changed, _ = timed("re-index after one file changed", index.update)
    assert changed.parsed_paths == [target], changed.parsed_paths

    timed("repo map 1024 tokens (first render)", lambda: index.repo_map(tokens=1024))
    timed("repo map 1024 tokens (cached)", lambda: index.repo_map(tokens=1024))
    focus = [target]
    timed("repo map 2048 tokens, focus on one file", lambda: index.repo_map(focus, tokens=2048))
    timed("exact search over every file", lambda: index.search("def get_", mode="exact", k=10**6))
    timed("regex search over every file", lambda: index.search(r"class \w+Error", mode="regex", k=10**6))  # fmt: skip
    timed("fuzzy file search", lambda: index.search("modelforms", mode="fuzzy"))
    timed("BM25 build + first locate", lambda: index.locate("QuerySet.filter crashes on None"))
    timed("locate (BM25 built)", lambda: index.locate("migration autodetector renames field"))
    index.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
