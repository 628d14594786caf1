"""Disk budget benchmark: the red team's disk fills, full size, against the default budget.

Each case runs in a fresh repository under the default limits (a 2 GiB disk budget) in
each isolation mode asked for, while a thread samples the space the repository's and
TMPDIR's files take. It prints how the command ended, the peak of that space while it ran
and what is left on disk after it (what a stopped command created is removed).

- ``3 x 900M seq``: three ``fallocate -l 900M`` one after another (the red team left 2.7 GB)
- ``8 x 1000M par``: eight ``fallocate -l 1000M`` at once (the red team reached 7.8 GiB)
- ``1 x 1500M``: one legitimate 1.5 GB file, which must be allowed and kept
- ``8 x dd 1000M par``: eight ``dd bs=1M count=1000`` at once (writes, caught by the watch)
- ``8 x cp 1000M par``: eight copies of a 1000 MB file made before the run (copy_file_range)

Needs about 12 GB free on the temporary directory's filesystem.

Usage: uv run --no-sync python benchmarks/sandbox/disk_budget.py [--modes bwrap,none]
       [--dir DIR] [--cases NAME,...]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from patchwright.sandbox import Limits, Sandbox

GiB = 1024**3
_PARALLEL = "for i in 1 2 3 4 5 6 7 8; do {} & done; wait; echo finished"
CASES = {
    "3 x 900M seq": "fallocate -l 900M a; fallocate -l 900M b; fallocate -l 900M c; echo finished",
    "8 x 1000M par": _PARALLEL.format("fallocate -l 1000M f$i"),
    "1 x 1500M": "fallocate -l 1500M big && echo finished",
    "8 x dd 1000M par": _PARALLEL.format("dd if=/dev/zero of=f$i bs=1M count=1000 status=none"),
    "8 x cp 1000M par": _PARALLEL.format("cp source.bin f$i"),
}


def on_disk(*dirs: Path) -> int:
    total = 0
    for top in dirs:
        for path, _, files in os.walk(top):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(path, name)).st_blocks * 512
    return total


def run_case(name: str, mode: str, base: Path) -> str:
    repo = base / "repo"
    repo.mkdir()
    if "cp" in name:
        with (repo / "source.bin").open("wb") as handle:
            handle.write(os.urandom(1024**2) * 1000)
    sandbox = Sandbox(repo, isolation=mode)  # type: ignore[arg-type]
    dirs = (repo, sandbox.tmpdir)
    already = on_disk(*dirs)
    most = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            most[0] = max(most[0], on_disk(*dirs) - already)
            time.sleep(0.0002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = sandbox.run(CASES[name], timeout=120)
    finally:
        done.set()
        sampler.join()
    left = on_disk(*dirs) - already
    sandbox.close()
    shutil.rmtree(repo)
    ended = result.blocked_by or (
        "ok" if "finished" in result.stdout else f"exit {result.exit_code}"
    )
    return (
        f"{name:<18} {mode:<8} {ended:<15} {most[0] / GiB:>7.2f} GiB {left / GiB:>7.2f} GiB"
        f" {result.seconds:>6.2f} s"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default="bwrap,unshare,none")
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--dir", default=None, help="where to make the repositories")
    args = parser.parse_args()
    budget = Limits().disk_bytes or 0
    print(f"disk budget {budget / GiB:g} GiB (the default); peak and left: the command's files")
    print(f"{'case':<18} {'mode':<8} {'ended':<15} {'peak':>11} {'left':>11} {'time':>8}")
    for name in args.cases.split(","):
        for mode in args.modes.split(","):
            base = Path(tempfile.mkdtemp(prefix="pw-diskbench-", dir=args.dir))
            try:
                print(run_case(name, mode, base), flush=True)
            finally:
                shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
