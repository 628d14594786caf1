"""Finding a run's processes: bubblewrap's init, adopted from its ``--info-fd`` report, is a
member until it is gone, and once it is gone its namespace is empty. And the process cap of a
user who is not root (``RLIMIT_NPROC``), which a fork bomb reaches but never passes."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from patchwright.sandbox.isolation import bwrap_problem
from patchwright.sandbox.nproc import NprocCap
from patchwright.sandbox.procs import RunTracker

needs_bwrap = pytest.mark.skipif(
    bwrap_problem() is not None, reason=f"bubblewrap unavailable: {bwrap_problem()}"
)


def _in_namespace(ns: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                inside = os.readlink(entry / "ns" / "pid") == ns
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if inside and state != "Z":
                found.append(int(entry.name))
    return found


@needs_bwrap
def test_bubblewraps_init_is_a_member_until_its_namespace_is_empty() -> None:
    read, write = os.pipe()
    marker = f"adopted-{uuid.uuid4().hex}"
    argv = ["bwrap", "--info-fd", str(write), "--ro-bind", "/", "/", "--dev", "/dev"]
    argv += ["--proc", "/proc", "--unshare-pid", "--die-with-parent", "--new-session"]
    script = f"setsid env -i bash -c 'exec -a {marker} sleep 300' & exec sleep 300"
    proc = subprocess.Popen(
        [*argv, "bash", "-c", script], pass_fds=(write,), start_new_session=True
    )
    os.close(write)
    with os.fdopen(read, "rb") as info:
        report = info.read()
    tracker = RunTracker(proc.pid, "PATCHWRIGHT_TEST_TOKEN", uuid.uuid4().hex, None)
    try:
        assert tracker.adopt(report)
        init = json.loads(report)["child-pid"]
        ns = f"pid:[{json.loads(report)['pid-namespace']}]"
        assert init in tracker.members(deep=False)
        tracker.kill()
        assert _in_namespace(ns) == []
        assert init not in tracker.members()
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_a_report_that_names_no_process_of_the_run_is_not_adopted() -> None:
    proc = subprocess.Popen([shutil.which("sleep") or "sleep", "30"], start_new_session=True)
    try:
        tracker = RunTracker(proc.pid, "PATCHWRIGHT_TEST_TOKEN", uuid.uuid4().hex, None)
        assert not tracker.adopt(b"")  # bubblewrap failed before it reported
        assert not tracker.adopt(b'{"child-pid": "x"}')
        assert not tracker.adopt(b"[1]")
        assert not tracker.adopt(b'{"child-pid": 1}')  # older than the run: never ours
        assert tracker.members() == {proc.pid}
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_the_rlimit_cap_counts_as_hit_once_the_users_tasks_sit_at_the_limit() -> None:
    full = NprocCap(0)
    assert full.rlimit() == (resource.RLIMIT_NPROC, full.allowed, full.allowed)
    full.allowed = 1  # this test's own process is one task: the user is at the limit
    assert not full.hit()  # once at the limit is a moment, not yet a cap hit
    time.sleep(0.15)
    assert full.hit()
    roomy = NprocCap(100_000)
    time.sleep(0.15)
    assert not roomy.hit() and not roomy.hit()
