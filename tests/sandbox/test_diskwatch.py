"""The disk budget's bookkeeping: what counts as written by a run, and how it is told."""

from __future__ import annotations

import os
import time
from pathlib import Path

from patchwright.sandbox.disk.watch import DiskWatch, Written, describe, human

KiB = 1024


def test_only_files_changed_since_the_start_count(tmp_path: Path) -> None:
    (tmp_path / "old.bin").write_bytes(b"x" * 64 * KiB)
    time.sleep(0.05)  # file times have the kernel's clock tick (a few ms) as resolution
    watch = DiskWatch([tmp_path], budget=1024**3)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.bin").write_bytes(b"y" * 64 * KiB)
    written = watch.collect()
    assert [Path(w.path).name for w in written] == ["new.bin"]
    assert written[0].bytes >= 64 * KiB


def test_a_deleted_file_still_held_open_counts(tmp_path: Path) -> None:
    watch = DiskWatch([tmp_path], budget=1024**3)
    path = tmp_path / "hidden.bin"
    with path.open("wb") as handle:
        handle.write(b"z" * 128 * KiB)
        handle.flush()
        os.fsync(handle.fileno())
        path.unlink()
        written = watch.collect([os.getpid()])  # this process may write other files meanwhile
    [held] = [w for w in written if "hidden.bin" in w.path]
    assert held.path.endswith("(deleted)") and held.bytes >= 128 * KiB


def test_a_small_run_stays_within_its_budget(tmp_path: Path) -> None:
    watch = DiskWatch([tmp_path], budget=1024**2)
    (tmp_path / "a").write_bytes(b"a" * 100 * KiB)
    assert not watch.check() and not watch.exceeded


def test_over_the_budget_is_caught_and_named(tmp_path: Path) -> None:
    watch = DiskWatch([tmp_path], budget=256 * KiB)
    for name in ("a", "b", "c"):
        with (tmp_path / name).open("wb") as handle:
            handle.write(b"q" * 200 * KiB)
            os.fsync(handle.fileno())
    watch._next_count = 0.0  # count now rather than wait for a fall in free space
    assert watch.check() and watch.exceeded
    assert sorted(Path(w.path).name for w in watch.written) == ["a", "b", "c"]


def write(path: Path, size: int) -> None:
    with path.open("wb") as handle:
        handle.write(b"w" * size)
        os.fsync(handle.fileno())


def test_admit_lets_in_what_fits_and_turns_down_the_rest(tmp_path: Path) -> None:
    watch = DiskWatch([tmp_path], budget=1024 * KiB)
    assert watch.admit(600 * KiB)
    write(tmp_path / "a", 600 * KiB)
    assert not watch.admit(600 * KiB)
    assert watch.exceeded and watch.refused == 600 * KiB
    assert [Path(w.path).name for w in watch.written] == ["a"]


def test_space_others_free_meanwhile_does_not_widen_the_budget(tmp_path: Path) -> None:
    area, elsewhere = tmp_path / "area", tmp_path / "elsewhere.bin"
    area.mkdir()
    write(elsewhere, 64 * 1024 * KiB)
    watch = DiskWatch([area], budget=1024 * KiB)
    elsewhere.unlink()  # someone else frees 64 MiB: the free space alone now hides our files
    write(area / "a", 600 * KiB)
    watch._next_count = 0.0  # the periodic recount, due now
    assert not watch.check()
    assert not watch.admit(600 * KiB) and watch.exceeded


def test_space_freed_between_two_admitted_requests_does_not_admit_a_third(tmp_path: Path) -> None:
    # seen with two test workers: the other one's cleanup freed 40 MiB while `fallocate`
    # took 2 x 20 MiB here, and the free space alone let a third and a fourth in
    area, elsewhere = tmp_path / "area", tmp_path / "elsewhere.bin"
    area.mkdir()
    write(elsewhere, 2048 * KiB)
    watch = DiskWatch([area], budget=1024 * KiB)
    for name in ("a", "b"):
        assert watch.admit(400 * KiB)
        write(area / name, 400 * KiB)
    elsewhere.unlink()  # before any recount is due
    assert not watch.admit(400 * KiB) and watch.exceeded
    assert sorted(Path(w.path).name for w in watch.written) == ["a", "b"]


def test_sizes_and_lists_read_plainly(tmp_path: Path) -> None:
    assert [human(n) for n in (7, 12 * KiB, 900 * KiB**2, 2 * KiB**3)] == [
        "7 B",
        "12 KiB",
        "900 MiB",
        "2 GiB",
    ]
    files = [Written(str(tmp_path / f"f{i}"), KiB**2) for i in range(12)]
    text = describe(files, tmp_path, limit=2)
    assert text == "f0 (1 MiB), f1 (1 MiB), and 10 more"
