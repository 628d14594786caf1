"""Crash safety: a child process doing multi-file transactions is SIGKILLed at random
moments; after recover() every file set is all-old or all-new."""

from __future__ import annotations

import random
from pathlib import Path

from patchwright.workspace.crashcheck import generation_of, setup, trial, work

TRIALS = 24


def test_worker_really_changes_the_files(tmp_path: Path) -> None:
    setup(tmp_path, 5)
    committed = work(tmp_path, 5, steps=30, seed=7)
    assert committed > 10
    assert generation_of(tmp_path, 5) > 0


def test_sigkill_at_random_moments_leaves_every_file_set_all_old_or_all_new(
    tmp_path: Path,
) -> None:
    rng = random.Random(20261122)
    setup(tmp_path, 6)
    generations = []
    recovered = 0
    for _ in range(TRIALS):
        result = trial(tmp_path, 6, rng, max_delay=0.08)
        generations.append(result.generation)
        recovered += bool(result.recovered)
    assert len(set(generations)) > 3, "the worker must make progress between kills"
    assert recovered > 0, "some kills must land inside a transaction"
