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
}

PERL_RMTREE = "cannot remove directory for /usr/share/x: Read-only file system at -e line 1."
CURL_REFUSED = (
    "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server"
)


@pytest.mark.parametrize(
    ("stderr", "changes", "expected"),
    [
        ("sh: /etc/x: Read-only file system", {}, "read-only-path"),
        ("sh: /etc/x: Read-only file system", {"filesystem_confined": False}, None),
        (PERL_RMTREE, {"exit_code": 0}, "read-only-path"),
        (PERL_RMTREE, {"exit_code": 0, "filesystem_confined": False}, None),
        ("OSError: [Errno 101] Network is unreachable", {}, "network"),
        ("curl: (6) Could not resolve host: x", {}, "network"),
        (CURL_REFUSED, {"exit_code": 7}, "network"),
        (CURL_REFUSED, {"exit_code": 7, "network_off": False}, None),
        ("", {"exit_code": 7, "programs": ("curl",)}, "network"),  # curl -s: no message
        ("", {"exit_code": 7, "programs": ("curl",), "network_off": False}, None),
        ("", {"exit_code": 7, "programs": ("make",)}, None),
        ("Network is unreachable", {"exit_code": 0}, None),
        ("ConnectionRefusedError: [Errno 111] Connection refused", {"network_off": False}, None),
        ("OSError: [Errno 27] File too large", {}, "file-size-limit"),
        ("", {"killed_by": "cpu-limit", "exit_code": None}, "cpu-limit"),
        ("", {"process_limit_hit": True}, "process-limit"),
        ("", {"killed_by": "disk-limit", "exit_code": None}, "disk-limit"),
        ("", {"disk_limit_hit": True, "exit_code": 0}, "disk-limit"),
        ("MemoryError", {}, "memory-limit"),
        ("Network is unreachable", {"killed_by": "timeout", "exit_code": None}, None),
        ("AssertionError: 1 != 2", {}, None),
    ],
)
def test_blocked_by(stderr: str, changes: dict[str, Any], expected: str | None) -> None:
    assert blocked_by(stderr=stderr, **{**BASE, **changes}) == expected


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Any]:
    """A hidden home with a key and a victim directory, and a repo (shown) with a link out."""
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("fake")
    (home / "victim").mkdir()
    repo.mkdir()
    (repo / "escape").symlink_to(home / "victim")
    return {"hidden": (home,), "exposed": (repo,), "cwd": repo, "home": home}


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        ("cat: {home}/.ssh/id_rsa: No such file or directory", "hidden-path"),
        ("FileNotFoundError: [Errno 2] No such file or directory: 'escape/planted'", "hidden-path"),
        ("cat: notes.txt: No such file or directory", None),  # in the repo: really missing
        ("cat: {home}/no/such/dir: No such file or directory", None),  # missing on the host too
    ],
)
def test_hidden_path_only_for_what_the_host_has(
    layout: dict[str, Any], stderr: str, expected: str | None
) -> None:
    home = layout.pop("home")
    text = stderr.format(home=home)
    assert blocked_by(stderr=text, **BASE, **layout) == expected


def test_explanations_name_the_rule() -> None:
    assert "--allow-net" in explain("network")
    assert "'sudo'" in explain("policy:sudo")
    assert explain("read-only-path").endswith("[read-only-path]")
    assert "disk budget" in explain("disk-limit")
