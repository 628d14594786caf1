"""Crash-consistency check for transactions, shared by the test suite and
``benchmarks/txn``: a worker process changes a set of files in transactions (commits,
rollbacks and undos) until it is SIGKILLed; :func:`check` then runs :func:`recover` and
verifies that the file set is all-old or all-new — every file at the same generation.

Run a worker by hand: ``python -m patchwright.workspace.crashcheck ROOT NFILES``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from patchwright.workspace.transaction import Transaction, recover
from patchwright.workspace.undo import undo

TOGGLE = "toggle.txt"  # exists exactly when the generation is odd
_FILLER = b"#" * 1500 + b"\n"


class WorkerError(RuntimeError):
    """The worker process could not start (a broken environment, not a consistency failure)."""


def file_name(index: int) -> str:
    return f"d{index % 4}/f{index}.txt"


def contents(generation: int, index: int) -> bytes:
    return f"gen {generation} file {index}\n".encode() + _FILLER


def file_set(generation: int, nfiles: int) -> dict[str, bytes | None]:
    """The full state of generation ``generation``."""
    state: dict[str, bytes | None] = {file_name(i): contents(generation, i) for i in range(nfiles)}
    state[TOGGLE] = b"odd\n" if generation % 2 else None
    return state


def setup(root: Path, nfiles: int) -> None:
    """Create generation 0 directly (no transaction)."""
    for rel, data in file_set(0, nfiles).items():
        if data is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)


def generation_of(root: Path, nfiles: int) -> int:
    """The common generation of the file set; raises AssertionError if the set is mixed."""
    gens = set()
    for i in range(nfiles):
        first = (root / file_name(i)).read_bytes().split(b"\n", 1)[0].split()
        gens.add(int(first[1]))
    if len(gens) != 1:
        raise AssertionError(f"files are at different generations: {sorted(gens)}")
    generation = gens.pop()
    if (root / TOGGLE).exists() != bool(generation % 2):
        raise AssertionError(f"{TOGGLE} does not match generation {generation}")
    for i in range(nfiles):
        if (root / file_name(i)).read_bytes() != contents(generation, i):
            raise AssertionError(f"{file_name(i)} is torn")
    return generation


def work(
    root: Path, nfiles: int, steps: int | None = None, *, seed: int = 0, report: bool = False
) -> int:
    """Change the file set in a loop; return the number of committed transactions.
    ``report`` prints ``step`` after each step so a parent can wait for progress."""
    rng = random.Random(seed or os.getpid())
    recover(root)
    generation = generation_of(root, nfiles)
    print("ready", flush=True)
    committed = 0
    step = 0
    while steps is None or step < steps:
        step += 1
        roll = rng.random()
        if roll < 0.1 and generation > 0:
            undo(root, 1)
            generation -= 1
        else:
            tx = Transaction(root, keep_undo=8)
            tx.stage(file_set(generation + 1, nfiles))
            tx.write()
            if roll < 0.25:
                tx.rollback()
            else:
                tx.commit(f"gen {generation + 1}")
                generation += 1
                committed += 1
        if report:
            print("step", flush=True)
    return committed


@dataclass
class TrialResult:
    generation: int
    recovered: list[str]


def trial(root: Path, nfiles: int, rng: random.Random, max_delay: float = 0.05) -> TrialResult:
    """Start a worker, SIGKILL it at a random moment (sometimes also a recovering process),
    then recover and check. Raises AssertionError when the file set is mixed."""
    cmd = [sys.executable, "-m", "patchwright.workspace.crashcheck", str(root), str(nfiles)]
    steps = rng.randint(0, 3)  # let the worker finish a few steps first, whatever the load
    _spawn_and_kill(cmd, rng.uniform(0, max_delay), wait_steps=steps)
    if rng.random() < 0.3:  # also kill a process in the middle of its own recovery
        _spawn_and_kill([*cmd, "--recover-only"], rng.uniform(0, 0.02), wait_steps=None)
    messages = recover(root)
    generation = generation_of(root, nfiles)
    leftovers = [p.name for p in root.rglob("*.pwtmp")]
    if leftovers:
        raise AssertionError(f"temp files left behind: {leftovers}")
    journal = root / ".patchwright" / "journal"
    if journal.exists() and any(journal.iterdir()):
        raise AssertionError(f"journal not empty after recover: {list(journal.iterdir())}")
    return TrialResult(generation, messages)


def _spawn_and_kill(cmd: list[str], delay: float, *, wait_steps: int | None) -> None:
    """Run ``cmd``; when ``wait_steps`` is set, wait for ``ready`` and that many ``step``
    lines; then sleep ``delay`` and SIGKILL it."""
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        if wait_steps is not None:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if line.strip() != b"ready":
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise WorkerError(f"worker failed to start: {line!r} {err}")
            for _ in range(wait_steps):
                if proc.stdout.readline().strip() != b"step":
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise WorkerError(f"worker stopped early: {err}")
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def main(argv: list[str]) -> int:
    root, nfiles = Path(argv[0]), int(argv[1])
    if "--recover-only" in argv:
        recover(root)
        return 0
    work(root, nfiles, report=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
