"""Fixtures for the sandbox tests: a repo, a fake HOME, and sandboxes in each isolation mode.

Tests run under every isolation layer that works on this machine (bubblewrap,
``unshare -n``, none); a check that needs a layer this machine lacks is skipped with
the sandbox's own explanation, never passed silently.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from patchwright.sandbox import Limits, Sandbox

sys.path.insert(0, str(Path(__file__).parent))  # test helpers (rewheel) live next to the tests

MODES = ["bwrap", "unshare", "none"]
FAST = Limits(
    cpu_seconds=20,
    address_space_bytes=4 * 1024**3,
    file_size_bytes=64 * 1024**2,
    processes=64,
    open_files=256,
    output_bytes=64 * 1024,
    kill_grace=0.2,
)

MakeSandbox = Callable[..., Sandbox]


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME with a fake private key, so no test ever touches the real one."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN FAKE KEY-----\nsecret-material\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def repo(tmp_path: Path, fake_home: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "hello.txt").write_text("hello\n")
    return root


@pytest.fixture
def make_sandbox(repo: Path) -> Iterator[MakeSandbox]:
    made: list[Sandbox] = []

    def make(mode: str = "auto", **kwargs: Any) -> Sandbox:
        kwargs.setdefault("limits", FAST)
        sandbox = Sandbox(repo, isolation=mode, **kwargs)  # type: ignore[arg-type]
        made.append(sandbox)
        if mode != "auto" and sandbox.layer.mode != mode:
            pytest.skip(f"{mode} is not available here: {sandbox.isolation}")
        return sandbox

    yield make
    for sandbox in made:
        sandbox.close()


@pytest.fixture
def survivors() -> Callable[..., list[str]]:
    """Processes whose command line contains a marker (ones that escaped the kill), each
    described (pid, state, parent, pid namespace, command line) so a failure says what
    survived. A process the kernel is still tearing down (a pid namespace's members die
    with its init, but not in the same instant) is given up to 3 s to go; one that
    escaped lives on, since every attack's process sleeps for minutes. A test that must find
    none even a moment later passes ``settle=0``."""
    return _survivors


def _survivors(marker: str, settle: float = 3.0) -> list[str]:
    end = time.monotonic() + settle
    found = _marked(marker)
    while found and time.monotonic() < end:
        time.sleep(0.05)
        found = _marked(marker)
    return found


def _marked(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                ns = os.readlink(entry / "ns" / "pid")
            except OSError:
                continue
            if marker.encode() in cmdline and fields[0] != "Z":
                command = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
                found.append(f"pid {entry.name} state {fields[0]} ppid {fields[1]} {ns}: {command}")
    return found
