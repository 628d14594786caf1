"""Transaction benchmark: crash trials and throughput.

1. Crash trials: a worker process changes a file set in transactions (commits, rollbacks,
   undos) and is SIGKILLed at a random moment; recover() must leave the set all-old or
   all-new. Default 1,000 trials.
2. Throughput: stage + write + commit transactions per second for 1, 10 and 100 files
   (each file ~1.5 KB; every write is fsynced, so the figure depends on the disk).

Usage: uv run --no-sync python benchmarks/txn/run.py [--trials N] [--dir DIR] [--seconds S]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from patchwright.workspace.crashcheck import setup, trial
from patchwright.workspace.transaction import Transaction, recover


def crash_trials(base: Path, trials: int, nfiles: int, seed: int) -> None:
    root = Path(tempfile.mkdtemp(prefix="pw-crash-", dir=base))
    rng = random.Random(seed)
    setup(root, nfiles)
    start = time.perf_counter()
    recovered = 0
    generations: set[int] = set()
    failures = 0
    for i in range(trials):
        try:
            result = trial(root, nfiles, rng, max_delay=0.08)
        except AssertionError as exc:
            failures += 1
            print(f"trial {i}: INCONSISTENT: {exc}", flush=True)
            recover(root)
            continue
        recovered += bool(result.recovered)
        generations.add(result.generation)
        if (i + 1) % 100 == 0:
            print(f"  {i + 1} trials, {failures} inconsistent", flush=True)
    seconds = time.perf_counter() - start
    print(
        f"crash trials: {trials} with {nfiles} files each, {failures} inconsistent, "
        f"{recovered} kills landed inside a transaction (rolled back by recover), "
        f"{len(generations)} distinct generations reached, {seconds:.1f} s"
    )
    shutil.rmtree(root, ignore_errors=True)
    if failures:
        sys.exit(1)


def throughput(base: Path, nfiles: int, seconds: float) -> float:
    root = Path(tempfile.mkdtemp(prefix="pw-tps-", dir=base))
    setup(root, nfiles)
    names = [p.relative_to(root).as_posix() for p in root.rglob("*.txt")]
    count = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or count < 3:
        count += 1
        payload = {name: f"{count} {name}\n".encode() + b"#" * 1500 for name in names}
        tx = Transaction(root)
        tx.stage(payload)
        tx.write()
        tx.commit(f"change {count}")
    rate = count / (time.perf_counter() - start)
    shutil.rmtree(root, ignore_errors=True)
    return rate


def fsync_latency_ms(base: Path, rounds: int = 50) -> float:
    """Mean latency of write+fsync here: transactions are bound by it."""
    probe = base / f"pw-fsync-probe-{os.getpid()}"
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        start = time.perf_counter()
        for _ in range(rounds):
            os.write(fd, b"x")
            os.fsync(fd)
        return (time.perf_counter() - start) / rounds * 1000
    finally:
        os.close(fd)
        probe.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--files", type=int, default=6, help="files per crash-trial set")
    parser.add_argument("--seconds", type=float, default=3.0, help="per throughput size")
    parser.add_argument("--dir", type=Path, default=None, help="where to work (default: tmp)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    base = args.dir or Path(tempfile.gettempdir())
    print(f"working under {base}; write+fsync latency {fsync_latency_ms(base):.2f} ms")
    for nfiles in (1, 10, 100):
        rate = throughput(base, nfiles, args.seconds)
        print(f"throughput: {nfiles:>3} files/transaction: {rate:8.1f} transactions/s "
              f"({rate * nfiles:8.0f} files/s)")  # fmt: skip
    if args.trials:
        crash_trials(base, args.trials, args.files, args.seed)


if __name__ == "__main__":
    main()
