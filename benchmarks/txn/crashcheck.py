"""Crash-consistency harness for transactions, shared by ``benchmarks/txn/run.py`` and
``tests/workspace/test_crash.py``.

A worker process holds a file set (``NFILES`` files plus a toggle file that exists exactly
at odd generations) and runs one operation per request from its parent: ``commit``
(generation g → g+1), ``rollback`` (writes g+1, then rolls it back) or ``undo`` (g → g-1).
The parent watches ``.patchwright/journal/`` (inotify where there is one) and SIGKILLs the
worker a random delay after the journal entry *appears*, so kills land inside the
transaction rather than during interpreter start-up. Optionally it then starts a process
that recovers and SIGKILLs that one inside its recovery too. Finally it recovers and
classifies the file set: all-old, all-new, mixed (files at different generations) or torn
(a file that is no generation's content), before and after recovery.

Run by the parent as ``python crashcheck.py worker ROOT NFILES`` or ``... recover ROOT``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import random
import select
import signal
import statistics
import struct
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from patchwright.workspace.recovery import recover
from patchwright.workspace.transaction import Transaction
from patchwright.workspace.undoing import list_undo, undo

TOGGLE = "toggle.txt"  # exists exactly when the generation is odd
JOURNAL = Path(".patchwright") / "journal"
OPERATIONS = ("commit", "rollback", "undo")
_FILLER = b"#" * 1500 + b"\n"
_SCRIPT = str(Path(__file__).resolve())


class WorkerError(RuntimeError):
    """A worker did not behave (a broken environment, not a consistency failure)."""


# -- the file set -------------------------------------------------------------------------


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
    """Create generation 0 directly (no transaction) and the journal folder to watch."""
    for rel, data in file_set(0, nfiles).items():
        if data is not None:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
    (root / JOURNAL).mkdir(parents=True, exist_ok=True)


def _generation_of_file(root: Path, index: int) -> int | None:
    """The generation whose content the file holds exactly; None when it is torn."""
    try:
        data = (root / file_name(index)).read_bytes()
        generation = int(data.split(b"\n", 1)[0].split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return generation if data == contents(generation, index) else None


def classify(root: Path, nfiles: int, old: int, new: int) -> str:
    """``all-old`` / ``all-new`` (every file, toggle included, at that generation), ``mixed``
    (whole files from different generations), ``torn`` (a file that is no generation's
    content), or ``other`` (consistent at a third generation: a harness bug)."""
    generations = {_generation_of_file(root, i) for i in range(nfiles)}
    if None in generations:
        return "torn"
    if len(generations) > 1:
        return "mixed"
    (generation,) = generations
    assert generation is not None
    if (root / TOGGLE).exists() != bool(generation % 2):
        return "mixed"
    return {old: "all-old", new: "all-new"}.get(generation, "other")


def generation_of(root: Path, nfiles: int) -> int:
    """The common generation of a consistent file set; AssertionError when it is not."""
    generation = _generation_of_file(root, 0)
    if generation is None or classify(root, nfiles, generation, -1) != "all-old":
        raise AssertionError(f"the file set in {root} is not at one generation")
    return generation


def leftovers(root: Path) -> list[str]:
    """Temp files and journal entries left behind (must be none after recovery)."""
    temps = [p.name for p in root.rglob("*.pwtmp")]
    journal = root / JOURNAL
    entries = [p.name for p in journal.iterdir()] if journal.is_dir() else []
    return temps + entries


def journal_pending(root: Path) -> bool:
    journal = root / JOURNAL
    return journal.is_dir() and any(journal.iterdir())


# -- the processes ------------------------------------------------------------------------


def worker(root: Path, nfiles: int) -> None:
    """Serve operations from stdin, one line each; print ``begin OP TARGET`` before and
    ``done`` after each."""
    recover(root)
    generation = generation_of(root, nfiles)
    print(f"ready {generation}", flush=True)
    for line in sys.stdin:
        op = line.strip()
        if op == "undo" and not list_undo(root):
            op = "commit"
        target = generation - 1 if op == "undo" else generation + 1
        print(f"begin {op} {target}", flush=True)
        if op == "undo":
            undo(root, 1)
            generation = target
        else:
            tx = Transaction(root, keep_undo=8)
            tx.stage(file_set(target, nfiles))
            tx.write()
            if op == "rollback":
                tx.rollback()
            else:
                tx.commit(f"gen {target}")
                generation = target
        print("done", flush=True)


def recoverer(root: Path) -> None:
    """Announce, then recover (the parent times its kill from the announcement)."""
    print("recovering", flush=True)
    recover(root)
    print("recovered", flush=True)


class JournalWatch:
    """Wakes when an entry appears in the journal folder: inotify on Linux, else polling."""

    _IN_CREATE, _IN_MOVED_TO = 0x100, 0x80

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.fd: int | None = None
        name = ctypes.util.find_library("c")
        libc = ctypes.CDLL(name, use_errno=True) if name else None
        if libc is not None and hasattr(libc, "inotify_init1"):
            fd = libc.inotify_init1(os.O_CLOEXEC | os.O_NONBLOCK)
            mask = self._IN_CREATE | self._IN_MOVED_TO
            if fd >= 0 and libc.inotify_add_watch(fd, os.fsencode(journal), mask) >= 0:
                self.fd = fd
            elif fd >= 0:
                os.close(fd)

    def drain(self) -> None:
        if self.fd is not None:
            while select.select([self.fd], [], [], 0)[0]:
                os.read(self.fd, 65536)

    def wait(self, timeout: float) -> bool:
        """True once a journal entry (not a trash folder) appears; False after ``timeout``."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            if self.fd is None:
                if any(not p.name.startswith(".trash-") for p in self.journal.iterdir()):
                    return True
                time.sleep(0.0005)
                continue
            if not select.select([self.fd], [], [], left)[0]:
                return False
            data = os.read(self.fd, 65536)
            offset = 0
            while offset < len(data):
                _, _, _, size = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16 : offset + 16 + size].rstrip(b"\0")
                offset += 16 + size
                if not name.startswith(b".trash-"):
                    return True
        return False

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, _SCRIPT, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _line(proc: subprocess.Popen[bytes], expected: str) -> list[str]:
    assert proc.stdout is not None
    words = proc.stdout.readline().decode().split()
    if not words or words[0] != expected:
        proc.kill()
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise WorkerError(f"expected {expected!r} from {proc.args!r}, got {words}: {err}")
    return words


def _reap(proc: subprocess.Popen[bytes]) -> str:
    """Wait for a killed process; the rest of its stdout."""
    proc.wait()
    out = proc.stdout.read().decode() if proc.stdout else ""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    return out


# -- trials -------------------------------------------------------------------------------


@dataclass
class Trial:
    """One kill and what recovery made of it."""

    op: str
    old: int
    new: int
    inside: bool  # the journal was still there when the kill landed
    before: str  # classification before any recovery
    after: str  # classification after the final recovery
    recovery_killed: bool = False
    recovery_inside: bool = False  # the journal was still there after the recoverer died
    between: str = ""  # classification after the killed recovery, before the final one
    leftovers: list[str] = field(default_factory=list)


@dataclass
class Timing:
    """Median seconds from a journal's appearance to the operation's end, per operation, and
    of a recovery, per kind: ``restore`` (files to put back) or ``discard`` (journal only)."""

    op: dict[str, float]
    recovery: dict[str, float]


def _recovery_kind(state: str) -> str:
    return "discard" if state == "all-old" else "restore"


class Harness:
    def __init__(self, root: Path, nfiles: int, rng: random.Random) -> None:
        self.root, self.nfiles, self.rng = root, nfiles, rng
        self.watch = JournalWatch(root / JOURNAL)

    def close(self) -> None:
        self.watch.close()

    def _start(self) -> tuple[subprocess.Popen[bytes], int]:
        proc = _spawn("worker", str(self.root), str(self.nfiles))
        return proc, int(_line(proc, "ready")[1])

    def _begin(self, proc: subprocess.Popen[bytes], op: str) -> tuple[str, int, float]:
        """Send ``op``; wait for its journal to appear. Returns (op, target, time seen)."""
        assert proc.stdin is not None
        self.watch.drain()
        proc.stdin.write(f"{op}\n".encode())
        proc.stdin.flush()
        _, actual, target = _line(proc, "begin")
        if not self.watch.wait(30.0):
            proc.kill()
            raise WorkerError(f"no journal appeared for {actual}: {_reap(proc)}")
        return actual, int(target), time.perf_counter()

    def calibrate(self, rounds: int = 8) -> Timing:
        """Time each operation unkilled, and recoveries of real crashes."""
        proc, _ = self._start()
        durations: dict[str, list[float]] = {op: [] for op in OPERATIONS}
        for _ in range(rounds):
            for op in ("commit", "commit", "rollback", "undo"):
                actual, _, seen = self._begin(proc, op)
                _line(proc, "done")
                durations[actual].append(time.perf_counter() - seen)
        proc.kill()
        _reap(proc)
        op_times = {op: statistics.median(d) for op, d in durations.items() if d}
        rec: dict[str, list[float]] = {"restore": [], "discard": []}
        for i in range(2 * rounds):
            proc, _ = self._start()
            _, target, seen = self._begin(proc, "commit")
            time.sleep(op_times["commit"] * (i + 0.5) / (2 * rounds))
            proc.kill()
            _reap(proc)
            if not journal_pending(self.root):
                continue
            kind = _recovery_kind(classify(self.root, self.nfiles, target - 1, target))
            proc = _spawn("recover", str(self.root))
            _line(proc, "recovering")
            start = time.perf_counter()
            _line(proc, "recovered")
            rec[kind].append(time.perf_counter() - start)
            _reap(proc)
        recover(self.root)
        fallback = statistics.median(rec["restore"] + rec["discard"] or [0.005])
        times = {kind: statistics.median(t) if t else fallback for kind, t in rec.items()}
        return Timing(op_times, times)

    def trial(self, timing: Timing, *, kill_recovery: bool, stretch: float = 1.0) -> Trial:
        """Kill a worker a random delay after its journal appears (up to ``stretch`` times
        the operation's usual length); maybe kill a recoverer inside its recovery; recover
        and classify."""
        proc, _ = self._start()
        op = self.rng.choices(OPERATIONS, weights=(70, 15, 15))[0]
        actual, target, seen = self._begin(proc, op)
        old = target + 1 if actual == "undo" else target - 1
        delay = self.rng.uniform(0, stretch * timing.op.get(actual, timing.op["commit"]))
        time.sleep(max(0.0, seen + delay - time.perf_counter()))
        proc.send_signal(signal.SIGKILL)
        _reap(proc)
        inside = journal_pending(self.root)
        result = Trial(
            actual, old, target, inside, classify(self.root, self.nfiles, old, target), ""
        )
        if kill_recovery and inside:
            result.recovery_killed = True
            rec = _spawn("recover", str(self.root))
            _line(rec, "recovering")
            usual = timing.recovery[_recovery_kind(result.before)]
            time.sleep(self.rng.uniform(0, stretch * usual))
            rec.send_signal(signal.SIGKILL)
            _reap(rec)
            result.recovery_inside = journal_pending(self.root)
            result.between = classify(self.root, self.nfiles, old, target)
        recover(self.root)
        result.after = classify(self.root, self.nfiles, old, target)
        result.leftovers = leftovers(self.root)
        return result


def summarise(trials: list[Trial]) -> dict[str, Counter[str]]:
    """Counts per question: operations, where kills landed, states before and after."""
    killed = [t for t in trials if t.recovery_killed]
    return {
        "operation": Counter(t.op for t in trials),
        "kill landed": Counter(
            "inside the transaction" if t.inside else "after it finished" for t in trials
        ),
        "before recovery": Counter(t.before for t in trials),
        "after recovery": Counter(t.after for t in trials),
        "recovery kills": Counter(
            "inside recovery" if t.recovery_inside else "after recovery finished" for t in killed
        ),
        "after a killed recovery": Counter(t.between for t in killed),
        "after recovering again": Counter(t.after for t in killed),
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["worker"]:
        worker(Path(argv[1]), int(argv[2]))
    elif argv[:1] == ["recover"]:
        recoverer(Path(argv[1]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
