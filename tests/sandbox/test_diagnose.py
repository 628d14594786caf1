"""``blocked_by``: a denial is named only when this sandbox could have caused it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from patchwright.sandbox.diagnose import blocked_by, explain

BASE: dict[str, Any] = {
    "exit_code": 1,
    "killed_by": None,
    "process_limit_hit": False,
    "network_off": True,
    "filesystem_confined": True,
    "hidden": (Path("/home/me"),),
}


@pytest.mark.parametrize(
    ("stderr", "changes", "expected"),
    [
        ("sh: /etc/x: Read-only file system", {}, "read-only-path"),
        ("sh: /etc/x: Read-only file system", {"filesystem_confined": False}, None),
        ("OSError: [Errno 101] Network is unreachable", {}, "network"),
        ("curl: (6) Could not resolve host: x", {}, "network"),
        ("ConnectionRefusedError: [Errno 111] Connection refused", {"network_off": False}, None),
        ("cat: /home/me/.ssh/id_rsa: No such file or directory", {}, "hidden-path"),
        ("cat: notes.txt: No such file or directory", {}, None),
        ("OSError: [Errno 27] File too large", {}, "file-size-limit"),
        ("", {"killed_by": "cpu-limit", "exit_code": None}, "cpu-limit"),
        ("", {"process_limit_hit": True}, "process-limit"),
        ("MemoryError", {}, "memory-limit"),
        ("Read-only file system", {"exit_code": 0}, None),
        ("Network is unreachable", {"killed_by": "timeout", "exit_code": None}, None),
        ("AssertionError: 1 != 2", {}, None),
    ],
)
def test_blocked_by(stderr: str, changes: dict[str, Any], expected: str | None) -> None:
    assert blocked_by(stderr=stderr, **{**BASE, **changes}) == expected


def test_explanations_name_the_rule() -> None:
    assert "--allow-net" in explain("network")
    assert "'sudo'" in explain("policy:sudo")
    assert explain("read-only-path").endswith("[read-only-path]")
