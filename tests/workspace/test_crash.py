"""Crash safety: a child process running a transaction is SIGKILLed at a random moment after
its journal appears (sometimes a recovering process too); after recover() every file set
is all-old or all-new, never mixed or torn. The harness is ``benchmarks/txn/crashcheck.py``,
which runs the same trials a thousand times."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

TRIALS = 24
HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "txn" / "crashcheck.py"


@pytest.fixture(scope="module")
def crashcheck() -> ModuleType:
    spec = importlib.util.spec_from_file_location("crashcheck", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["crashcheck"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_classifier_tells_old_new_mixed_and_torn_apart(
    tmp_path: Path, crashcheck: ModuleType
) -> None:
    crashcheck.setup(tmp_path, 3)
    assert crashcheck.classify(tmp_path, 3, 0, 1) == "all-old"
    for rel, data in crashcheck.file_set(1, 3).items():
        (tmp_path / rel).write_bytes(data)
    assert crashcheck.classify(tmp_path, 3, 0, 1) == "all-new"
    (tmp_path / crashcheck.file_name(2)).write_bytes(crashcheck.contents(0, 2))
    assert crashcheck.classify(tmp_path, 3, 0, 1) == "mixed"
    (tmp_path / crashcheck.file_name(2)).write_bytes(crashcheck.contents(1, 2)[:20])
    assert crashcheck.classify(tmp_path, 3, 0, 1) == "torn"


@pytest.mark.serial  # its kill times are calibrated on the machine: alone, not beside 2 workers
def test_kills_inside_transactions_and_recoveries_leave_all_old_or_all_new(
    tmp_path: Path, crashcheck: ModuleType
) -> None:
    crashcheck.setup(tmp_path, 5)
    harness = crashcheck.Harness(tmp_path, 5, random.Random(20261122))
    try:
        timing = harness.calibrate(rounds=4)
        trials: list[Any] = []
        # kills land by timing: past TRIALS, go on (to twice as many, each delay drawn from a
        # range half as long again: a calibration on a busy disk can run short) until some
        # kill landed where recovery had work and some recovery was killed — every trial is
        # judged
        while len(trials) < TRIALS or (len(trials) < 2 * TRIALS and not _covered(trials)):
            stretch = 1.0 if len(trials) < TRIALS else 1.5
            trials.append(
                harness.trial(timing, kill_recovery=len(trials) % 2 == 0, stretch=stretch)
            )
    finally:
        harness.close()
    assert all(t.after in ("all-old", "all-new") and not t.leftovers for t in trials), trials
    inside = sum(t.inside for t in trials)
    assert inside >= len(trials) // 2, "kills must land inside transactions"
    assert any(t.recovery_killed for t in trials), "some recoveries must be killed too"
    assert any(t.inside and t.before != "all-old" for t in trials), "recovery must have work"


def _covered(trials: list[Any]) -> bool:
    return any(t.recovery_killed for t in trials) and any(
        t.inside and t.before != "all-old" for t in trials
    )
