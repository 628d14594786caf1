"""``patchwright exec``: one command in the sandbox; exact JSON; refusals exit 2."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from patchwright.cli import app
from patchwright.sandbox import Sandbox

KEYS = {"exit_code", "stdout", "stderr", "timed_out", "blocked_by", "truncated", "seconds"}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    return root


def run(repo: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["exec", "--repo", str(repo), *args])
    return result.exit_code, result.stdout


def test_runs_an_argv_and_passes_its_options_through(repo: Path) -> None:
    code, out = run(repo, "--", "ls", "-a")
    assert code == 0 and ".\n" in out and "a.txt" in out


def test_one_argument_is_a_shell_line(repo: Path) -> None:
    code, out = run(repo, "--", "cat a.txt | tr a-z A-Z")
    assert (code, out) == (0, "ALPHA\n")


def test_exit_code_is_the_commands_own_and_json_is_exact(repo: Path) -> None:
    code, out = run(repo, "--json", "--", "echo out; echo err >&2; exit 3")
    data = json.loads(out)
    assert code == 3 and set(data) == KEYS
    assert data["exit_code"] == 3 and data["stdout"] == "out\n" and data["stderr"] == "err\n"
    assert data["timed_out"] is False and data["blocked_by"] is None
    assert data["truncated"] is False and isinstance(data["seconds"], float)


def test_forbidden_command_is_refused_with_exit_2_and_never_runs(repo: Path) -> None:
    code, out = run(repo, "--json", "--", "touch ran; sudo id")
    data = json.loads(out)
    assert code == 2 and data["blocked_by"] == "policy:privilege-escalation"
    assert data["exit_code"] is None and not (repo / "ran").exists()


def test_forbidden_argv_is_refused_too(repo: Path) -> None:
    code, _ = run(repo, "--", "rm", "-rf", "/")
    assert code == 2


def test_timeout_kills_and_exits_124(repo: Path) -> None:
    code, out = run(repo, "--json", "--timeout", "0.5", "--", "sleep", "20")
    data = json.loads(out)
    assert code == 124 and data["timed_out"] is True and data["exit_code"] is None
    assert data["seconds"] < 10


def test_missing_repo_is_a_usage_error(tmp_path: Path) -> None:
    code, _ = run(tmp_path / "nope", "--", "true")
    assert code == 2


@pytest.fixture
def server() -> Iterator[int]:
    srv = socket.create_server(("127.0.0.1", 0))
    srv.settimeout(10)

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"hi")

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()


def test_network_is_off_unless_allowed(repo: Path, server: int) -> None:
    if not Sandbox(repo).layer.network:
        pytest.skip(f"network isolation unavailable: {Sandbox(repo).isolation}")
    code = f"import socket; print(socket.create_connection(('127.0.0.1', {server})).recv(2))"
    denied, out = run(repo, "--json", "--", "python3", "-c", code)
    assert denied != 0 and json.loads(out)["blocked_by"] == "network"
    allowed, out = run(repo, "--json", "--allow-net", "--", "python3", "-c", code)
    assert allowed == 0 and json.loads(out)["stdout"] == "b'hi'\n"


def test_python_is_the_repositorys_virtualenv_when_it_has_one(repo: Path) -> None:
    python = repo / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "the repo\'s python: $VIRTUAL_ENV"\n')
    python.chmod(0o755)
    code, out = run(repo, "--", "python", "-V")
    assert (code, out) == (0, f"the repo's python: {repo / '.venv'}\n")
