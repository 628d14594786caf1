"""The disk budget holds: a ``fallocate`` past it is refused before it takes any space,
writes past it are caught within milliseconds, and a command stopped for it leaves none of
the files it created — only files that were there before, named.

The red team's cases at a tenth of their size (a 200 MiB budget instead of 2 GiB, 100M and
90M files instead of 1000M and 900M); ``benchmarks/sandbox/disk_budget.py`` runs them full
size. Peaks are sampled while the command runs, from the files themselves.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from patchwright.sandbox import Limits, Sandbox
from patchwright.sandbox.disk import clean as diskclean
from patchwright.sandbox.disk.fallocgate import Gate

# The peaks measured here are of a filesystem the machine shares: another test deleting or
# writing files meanwhile moves them (`make test` runs these after the parallel part, alone).
pytestmark = pytest.mark.serial

MODES = ["bwrap", "unshare", "none"]
MiB = 1024**2
BUDGET = 200 * MiB
LIMITS = Limits(
    cpu_seconds=20, file_size_bytes=1024**3, processes=64, kill_grace=0.2, disk_bytes=BUDGET
)
MakeSandbox = Callable[..., Sandbox]


@pytest.fixture(autouse=True)
def _fallocate_and_room() -> None:
    if shutil.which("fallocate") is None:
        pytest.skip("fallocate is not installed")
    if shutil.disk_usage("/tmp").free < 4 * 1024**3:
        pytest.skip("less than 4 GB free")


def on_disk(*dirs: Path) -> int:
    """Space the files under ``dirs`` take now."""
    total = 0
    for top in dirs:
        for path, _, files in os.walk(top):
            for name in files:
                with suppress(OSError):  # removed meanwhile
                    total += os.lstat(os.path.join(path, name)).st_blocks * 512
    return total


@contextmanager
def peak(*dirs: Path) -> Iterator[list[int]]:
    """The most space the files under ``dirs`` took while the block ran (in ``[0]``)."""
    most = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            most[0] = max(most[0], on_disk(*dirs))
            time.sleep(0.0002)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        yield most
    finally:
        done.set()
        sampler.join()


def names(*dirs: Path) -> set[str]:
    """What is under ``dirs`` (but patchwright's own ``.patchwright/``, made for bubblewrap)."""
    return {str(p) for top in dirs for p in top.rglob("*") if ".patchwright" not in p.parts}


@pytest.mark.parametrize("mode", MODES)
def test_eight_parallel_fallocates_stop_at_the_budget_and_leave_nothing(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    sandbox = make_sandbox(mode, limits=LIMITS)
    before = names(repo, sandbox.tmpdir)
    line = "for i in 1 2 3 4 5 6 7 8; do fallocate -l 100M f$i & done; wait; echo finished"
    with peak(repo, sandbox.tmpdir) as most:
        result = sandbox.run(line, timeout=60)
    assert result.blocked_by == "disk-limit" and result.killed_by == "disk-limit"
    assert "finished" not in result.stdout
    assert most[0] <= BUDGET * 1.1  # the red team's 8 × 1000M reached 7.8 GiB of 2 GiB
    assert names(repo, sandbox.tmpdir) == before  # every file it created is gone
    assert "removed the files it created" in result.stderr and "(100 MiB)" in result.stderr


@pytest.mark.parametrize("mode", MODES)
def test_three_files_one_after_another_stop_before_the_third(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    sandbox = make_sandbox(mode, limits=LIMITS)
    before = names(repo)
    line = "fallocate -l 90M a; fallocate -l 90M b; fallocate -l 90M c; sleep 5; echo done"
    with peak(repo) as most:
        result = sandbox.run(line, timeout=60)
    assert result.blocked_by == "disk-limit" and "done" not in result.stdout
    assert result.seconds < 5
    assert most[0] <= 2 * 90 * MiB + MiB  # the third never took its space
    assert names(repo) == before
    assert {"a", "b", "c"} <= set(result.removed) and "asked for 90 MiB more" in result.stderr


def test_one_large_file_within_the_default_budget_is_kept(
    make_sandbox: MakeSandbox, repo: Path
) -> None:
    sandbox = make_sandbox(limits=Limits(kill_grace=0.2))  # defaults: a 2 GiB budget
    try:
        result = sandbox.run("fallocate -l 1500M big && echo made", timeout=60)
        kept = (repo / "big").stat().st_blocks * 512 if (repo / "big").exists() else 0
    finally:
        (repo / "big").unlink(missing_ok=True)
    assert result.ok and result.stdout == "made\n" and result.blocked_by is None, result.stderr
    assert kept >= 1500 * MiB


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_files_that_were_there_before_are_left_and_named(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    (repo / "data.bin").write_bytes(b"old")
    sandbox = make_sandbox(mode, limits=LIMITS)
    line = (
        "fallocate -l 90M data.bin; mkdir -p out/deep; fallocate -l 90M out/deep/new.bin;"
        " : > out/empty; fallocate -l 90M out/more.bin; echo done"
    )
    try:
        result = sandbox.run(line, timeout=60)
        size = (repo / "data.bin").stat().st_size
    finally:
        (repo / "data.bin").unlink()
    assert result.blocked_by == "disk-limit" and "done" not in result.stdout
    assert size == 90 * MiB  # changed, but not ours to delete
    assert not (repo / "out").exists()  # created: the files, then the emptied folders
    assert "left on disk (they were there when it started): data.bin (90 MiB)" in result.stderr
    assert "out/deep/new.bin (90 MiB)" in result.stderr and "2 empty files" in result.stderr


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_parallel_writes_past_the_budget_are_caught_and_removed(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    sandbox = make_sandbox(mode, limits=LIMITS)
    before = names(repo)
    line = "for i in 1 2 3 4 5 6 7 8; do head -c 100M /dev/zero > f$i & done; wait; echo finished"
    with peak(repo) as most:
        result = sandbox.run(line, timeout=60)
    assert result.blocked_by == "disk-limit" and "finished" not in result.stdout
    assert most[0] <= BUDGET * 1.1
    assert names(repo) == before


def test_the_gate_performs_what_fits_and_refuses_the_rest(tmp_path: Path) -> None:
    gate = Gate.prepare()
    if gate is None:
        pytest.skip("no fallocate gate on this architecture")
    asked: list[int] = []

    def admit(size: int) -> bool:
        asked.append(size)
        return sum(asked) <= 25 * MiB

    script = (
        "for f in a b c; do fallocate -l 10M $f; echo $f=$?; done;"
        " fallocate -p -o 0 -l 1M a; echo punch=$?; ulimit -f 1024; fallocate -l 2M d; echo d=$?"
    )
    proc = subprocess.Popen(
        ["bash", "-c", script],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=gate.child_setup,
    )
    refusals: list[int] = []
    stop = gate.start(admit, lambda: refusals.append(1))
    out, err = proc.communicate(timeout=30)
    stop()
    assert out.split() == ["a=0", "b=0", "c=1", "punch=0", "d=153"], err  # 128 + SIGXFSZ
    assert "No space left on device" in err and refusals == [1]
    assert asked == [10 * MiB] * 3  # a punched hole takes nothing; d never got to ask
    assert (tmp_path / "b").stat().st_blocks * 512 >= 10 * MiB
    assert (tmp_path / "c").stat().st_blocks == 0 and not (tmp_path / "d").stat().st_blocks


@pytest.mark.parametrize("lister", ["find", "thread"])
def test_only_what_was_not_there_at_the_start_is_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lister: str
) -> None:
    if lister == "thread":
        monkeypatch.setattr("patchwright.sandbox.disk.clean.shutil.which", lambda name: None)
    (tmp_path / ".git" / "objects").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("old\n")
    keep = diskclean.kept_paths([tmp_path])
    before = diskclean.Before([tmp_path], keep)
    listed = before.paths()
    (tmp_path / "src" / "app.py").unlink()  # replaced by a new file, as sed -i does
    (tmp_path / "src" / "app.py").write_text("new\n")
    (tmp_path / "src" / "new.py").write_text("x")
    (tmp_path / "build" / "lib").mkdir(parents=True)
    (tmp_path / "build" / "lib" / "out.o").write_text("o")
    (tmp_path / ".git" / "objects" / "ab").write_text("an object a git call wrote")
    removed = diskclean.remove_created([tmp_path], listed, keep)
    assert sorted(Path(p).relative_to(tmp_path).as_posix() for p in removed) == [
        "build/lib/out.o",
        "src/new.py",
    ]
    assert (tmp_path / "src" / "app.py").read_text() == "new\n"  # the user's path stays
    assert not (tmp_path / "build").exists() and (tmp_path / ".git" / "objects" / "ab").exists()
