"""Transaction benchmark: crash trials and throughput.

1. Crash trials (``crashcheck.py``): a worker process runs one transaction (a commit, a
   rollback or an undo) on a file set and is SIGKILLed a random delay after the
   transaction's journal *appears* (up to the operation's usual length, measured first),
   so kills land inside the transaction. In a share of the trials a recovering process is
   SIGKILLed inside its recovery as well. The file set is classified before and after
   recovery: all-old, all-new, mixed or torn; after recovery mixed and torn must be 0, with
   no temp file or journal left. Default 1,000 trials.
2. Throughput: stage + write + commit transactions per second for 1, 10 and 100 files
   (each file ~1.5 KB; every write is fsynced, so the figure depends on the disk).

Usage: uv run --no-sync python benchmarks/txn/run.py [--trials N] [--recovery-kills P]
       [--files N] [--dir DIR] [--seconds S] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from crashcheck import Harness, Trial, setup, summarise

from patchwright.workspace.transaction import Transaction

_ORDER = ("all-old", "all-new", "mixed", "torn", "other")


def _counts(counter: Counter[str], keys: tuple[str, ...] = _ORDER) -> str:
    named = [f"{key} {counter.get(key, 0)}" for key in keys]
    named += [f"{key} {n}" for key, n in counter.items() if key not in keys]
    return ", ".join(named)


def _report(trials: list[Trial], seconds: float) -> bool:
    """Print the figures; True when every file set was consistent after recovery."""
    table = summarise(trials)
    bad = [t for t in trials if t.after not in ("all-old", "all-new") or t.leftovers]
    print(
        f"crash trials: {len(trials)}, kills timed from the journal's appearance, {seconds:.0f} s"
    )
    print(f"  operations:          {_counts(table['operation'], ())}")
    print(f"  kill landed:         {_counts(table['kill landed'], ())}")
    print(f"  before recovery:     {_counts(table['before recovery'])}")
    print(f"  after recovery:      {_counts(table['after recovery'])}, "
          f"temp files or journals left in {sum(bool(t.leftovers) for t in trials)}")  # fmt: skip
    killed = sum(table["recovery kills"].values())
    print(f"recovery kills: {killed} recovering processes SIGKILLed "
          f"({_counts(table['recovery kills'], ())})")  # fmt: skip
    print(f"  after a killed recovery: {_counts(table['after a killed recovery'])}")
    print(f"  after recovering again:  {_counts(table['after recovering again'])}")
    for t in bad[:10]:
        print(f"  INCONSISTENT: {t}")
    return not bad


def crash_trials(base: Path, trials: int, nfiles: int, seed: int, recovery_kills: float) -> bool:
    root = Path(tempfile.mkdtemp(prefix="pw-crash-", dir=base))
    rng = random.Random(seed)
    setup(root, nfiles)
    harness = Harness(root, nfiles, rng)
    try:
        timing = harness.calibrate()
        ops = ", ".join(f"{op} {t * 1000:.1f} ms" for op, t in timing.op.items())
        rec = ", ".join(f"{kind} {t * 1000:.1f} ms" for kind, t in timing.recovery.items())
        print(f"median length from the journal's appearance: {ops}; recovery: {rec}")
        start = time.perf_counter()
        results: list[Trial] = []
        for i in range(trials):
            results.append(harness.trial(timing, kill_recovery=rng.random() < recovery_kills))
            if (i + 1) % 100 == 0:
                bad = sum(t.after not in ("all-old", "all-new") for t in results)
                print(f"  {i + 1} trials, {bad} inconsistent after recovery", flush=True)
        return _report(results, time.perf_counter() - start)
    finally:
        harness.close()
        shutil.rmtree(root, ignore_errors=True)


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
    parser.add_argument(
        "--recovery-kills", type=float, default=0.3,
        help="share of trials that also kill a recovering process",
    )  # fmt: skip
    parser.add_argument("--no-throughput", action="store_true", help="crash trials only")
    parser.add_argument("--files", type=int, default=6, help="files per crash-trial set")
    parser.add_argument("--seconds", type=float, default=3.0, help="per throughput size")
    parser.add_argument("--dir", type=Path, default=None, help="where to work (default: tmp)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    base = args.dir or Path(tempfile.gettempdir())
    print(f"working under {base}; write+fsync latency {fsync_latency_ms(base):.2f} ms")
    for nfiles in () if args.no_throughput else (1, 10, 100):
        rate = throughput(base, nfiles, args.seconds)
        print(f"throughput: {nfiles:>3} files/transaction: {rate:8.1f} transactions/s "
              f"({rate * nfiles:8.0f} files/s)")  # fmt: skip
    if args.trials and not crash_trials(
        base, args.trials, args.files, args.seed, args.recovery_kills
    ):
        sys.exit(1)


if __name__ == "__main__":
    main()
