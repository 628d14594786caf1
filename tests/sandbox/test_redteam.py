"""The red team's sandbox findings (issue 12), replayed with decoys: each one contained and
reported.

A: writing ``.git`` (config, hooks) from the sandbox. B: host unix sockets. D: filling
the disk with many files. I: ``blocked_by`` left empty for denials the sandbox caused.
J: ``LC_*`` smuggling and policy blind spots (``xargs``, scripts piped to a shell,
computed command names, ``cd`` chains, links). Every decoy lives under the test's
temporary directory; real subprocesses, real git, real bubblewrap where installed.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from patchwright.sandbox import Limits, Sandbox

MODES = ["bwrap", "unshare", "none"]
MiB = 1024**2
BUDGET_50M = Limits(
    cpu_seconds=20, file_size_bytes=64 * MiB, processes=64, kill_grace=0.2, disk_bytes=50 * MiB
)
MakeSandbox = Callable[..., Sandbox]


def py(code: str) -> list[str]:
    """An argv running Python code (the policy cannot see inside, so containment must)."""
    return ["python3", "-c", code]


def git(*args: str, cwd: Path) -> str:
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(cwd), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def decoy(tmp_path: Path) -> Path:
    """A directory outside the repository that no command may delete."""
    path = tmp_path / "decoy"
    path.mkdir()
    (path / "precious.txt").write_text("keep me\n")
    return path


@pytest.fixture
def git_repo(repo: Path) -> Path:
    git("init", "-q", cwd=repo)
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A", cwd=repo)
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init", cwd=repo)
    return repo


def bwrap_only(sandbox: Sandbox) -> None:
    if sandbox.layer.mode != "bwrap":
        pytest.skip(f"only bubblewrap confines the filesystem: {sandbox.isolation}")


# -- A: .git is data, not code ---------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_planting_fsmonitor_needs_approval_in_every_mode(
    make_sandbox: MakeSandbox, git_repo: Path, decoy: Path, mode: str
) -> None:
    sandbox = make_sandbox(mode, approve=lambda verdict: False)
    result = sandbox.run(f'git config core.fsmonitor "rm -rf {decoy}; false"')
    assert result.blocked_by == "policy:git-config" and result.exit_code is None
    assert "fsmonitor" not in (git_repo / ".git" / "config").read_text()


def test_an_approved_fsmonitor_lands_in_a_read_only_git_dir(
    make_sandbox: MakeSandbox, git_repo: Path, decoy: Path
) -> None:
    asked: list[str | None] = []
    sandbox = make_sandbox("bwrap", approve=lambda v: asked.append(v.rule) is None)
    result = sandbox.run(f'git config core.fsmonitor "rm -rf {decoy}; false"')
    assert asked == ["git-config"]
    assert result.exit_code != 0 and result.blocked_by == "read-only-path"
    assert "fsmonitor" not in (git_repo / ".git" / "config").read_text()
    git("status", "--short", cwd=git_repo)  # the next git call outside the sandbox
    assert (decoy / "precious.txt").exists()


@pytest.mark.parametrize(
    "plant",
    [
        "open('.git/hooks/post-index-change', 'w').write('#!/bin/sh\\nrm -rf DECOY\\n')",
        "open('.git/config', 'a').write('[core]\\n\\tfsmonitor = rm -rf DECOY\\n')",
        "import os; os.rename('.git/config', '.git/config.old')",
        "import shutil; shutil.rmtree('.git')",
    ],
)
def test_writes_the_policy_cannot_see_hit_a_read_only_git_dir(
    make_sandbox: MakeSandbox, git_repo: Path, decoy: Path, plant: str
) -> None:
    sandbox = make_sandbox("bwrap")
    before = (git_repo / ".git" / "config").read_text()
    result = sandbox.run(py(plant.replace("DECOY", str(decoy))))
    assert result.exit_code != 0 and result.blocked_by == "read-only-path", result.stderr
    assert (git_repo / ".git" / "config").read_text() == before
    assert not (git_repo / ".git" / "hooks" / "post-index-change").exists()


def test_a_worktree_git_file_and_both_git_dirs_are_read_only(
    make_sandbox: MakeSandbox, tmp_path: Path, fake_home: Path
) -> None:
    main = tmp_path / "main"
    main.mkdir()
    (main / "a.txt").write_text("a\n")
    git_repo = git("init", "-q", cwd=main) or main
    git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A", cwd=git_repo)
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init", cwd=git_repo)
    worktree = tmp_path / "wt"
    git("worktree", "add", "-q", str(worktree), cwd=main)
    gitfile = (worktree / ".git").read_text()
    sandbox = Sandbox(worktree, isolation="bwrap", limits=Limits(kill_grace=0.2))
    try:
        bwrap_only(sandbox)
        private_git = main / ".git" / "worktrees" / "wt"
        for target in (
            worktree / ".git",
            private_git / "config.worktree",
            main / ".git" / "config",
        ):
            result = sandbox.run(py(f"open({str(target)!r}, 'a').write('x')"))
            assert result.blocked_by == "read-only-path", (target, result.stderr)
        status = sandbox.run("git status --short")  # reading still works
        assert status.exit_code == 0, status.stderr
    finally:
        sandbox.close()
    assert (worktree / ".git").read_text() == gitfile
    assert not (private_git / "config.worktree").exists()


# -- B: no unix socket of the host is reachable ------------------------------------------


@pytest.fixture
def unix_server(tmp_path: Path) -> Iterator[Path]:
    """A unix socket under the test's tmp dir that answers 'hello' to whoever connects."""
    path = tmp_path / "sockets" / "daemon.sock"
    path.parent.mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    server.settimeout(10)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"hello")

    threading.Thread(target=serve, daemon=True).start()
    yield path
    server.close()


UNIX_CONNECT = (
    "import socket, sys; s = socket.socket(socket.AF_UNIX); s.settimeout(5); "
    "s.connect(sys.argv[1]); print(s.recv(5).decode())"
)


@pytest.mark.parametrize("allow_net", [False, True])
def test_a_host_unix_socket_is_refused(
    make_sandbox: MakeSandbox, unix_server: Path, allow_net: bool
) -> None:
    sandbox = make_sandbox("bwrap", allow_net=allow_net)
    result = sandbox.run(["python3", "-c", UNIX_CONNECT, str(unix_server)])
    assert "hello" not in result.stdout and result.exit_code != 0
    assert "Connection refused" in result.stderr
    assert result.blocked_by == ("network" if not allow_net else None)


def test_a_host_socket_inside_the_repo_is_refused_too(
    make_sandbox: MakeSandbox, repo: Path
) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(repo / "dev.sock"))
    server.listen()
    try:
        result = make_sandbox("bwrap").run(["python3", "-c", UNIX_CONNECT, "dev.sock"])
    finally:
        server.close()
    assert result.exit_code != 0 and result.blocked_by == "network"


@pytest.mark.parametrize("mode", ["bwrap", "unshare"])
def test_an_abstract_unix_socket_is_out_of_reach(make_sandbox: MakeSandbox, mode: str) -> None:
    name = f"\0patchwright-test-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX)
    server.bind(name)
    server.listen()
    try:
        sandbox = make_sandbox(mode)
        code = UNIX_CONNECT.replace("sys.argv[1]", repr(name))
        result = sandbox.run(py(code))
    finally:
        server.close()
    assert result.exit_code != 0 and result.blocked_by == "network"


def test_tmp_and_run_are_private(make_sandbox: MakeSandbox) -> None:
    marker = Path("/tmp") / f"patchwright-decoy-{uuid.uuid4().hex}"
    marker.write_text("host file\n")
    try:
        sandbox = make_sandbox("bwrap")
        result = sandbox.run(["cat", str(marker)])
        listing = sandbox.run("ls -A /run /var/run; echo x > /tmp/new")
    finally:
        marker.unlink()
    assert "host file" not in result.stdout and result.blocked_by == "hidden-path"
    assert listing.blocked_by == "read-only-path"  # /tmp is empty *and* read-only
    assert not Path("/tmp/new").exists() or Path("/tmp/new").read_text() != "x\n"


def test_unix_sockets_stay_reachable_without_bubblewrap_as_documented(
    make_sandbox: MakeSandbox, unix_server: Path
) -> None:
    sandbox = make_sandbox("unshare")
    result = sandbox.run(["python3", "-c", UNIX_CONNECT, str(unix_server)])
    assert result.stdout == "hello\n"  # the known limit: docs/sandbox.md says so


# -- D: a disk budget per command ------------------------------------------------------


def needs_disk(gigabytes: int) -> None:
    if shutil.which("fallocate") is None:
        pytest.skip("fallocate is not installed")
    free = shutil.disk_usage("/tmp").free
    if free < gigabytes * 1024**3:
        pytest.skip(f"only {free / 1024**3:.1f} GB free; this test needs {gigabytes} GB")


def on_disk(*dirs: Path) -> int:
    return sum(p.stat().st_blocks * 512 for d in dirs for p in d.rglob("*") if p.is_file())


@pytest.mark.parametrize("mode", MODES)
def test_the_disk_budget_stops_many_files(make_sandbox: MakeSandbox, repo: Path, mode: str) -> None:
    needs_disk(10)
    sandbox = make_sandbox(mode, limits=BUDGET_50M)
    line = "for i in $(seq 1 40); do fallocate -l 20M f$i || exit 9; done; echo finished"
    result = sandbox.run(line, timeout=60)
    assert result.killed_by == "disk-limit" and result.blocked_by == "disk-limit"
    assert "finished" not in result.stdout and result.exit_code is None
    # the third file would not fit: it is refused, and the two before it are removed
    # (the fixture's hello.txt, written in the same clock tick as the start, may count too)
    assert set(result.written) - {"hello.txt"} == {"f1", "f2"}
    assert not list(repo.glob("f*")) and on_disk(repo) < MiB
    assert "disk budget" in result.stderr and "f1 (20 MiB)" in result.stderr


@pytest.mark.parametrize("mode", MODES)
def test_the_budget_spans_the_repo_and_the_private_tmp(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    needs_disk(10)
    sandbox = make_sandbox(mode, limits=BUDGET_50M)
    shm = "; fallocate -l 15M /dev/shm/c" if sandbox.layer.mode == "bwrap" else ""
    line = f'fallocate -l 15M a; fallocate -l 15M "$TMPDIR/b"{shm}; fallocate -l 15M d'
    result = sandbox.run(f"{line}; fallocate -l 15M e; sleep 10", timeout=30)
    assert result.blocked_by == "disk-limit" and result.seconds < 8
    names = {Path(p).name for p in result.written}
    assert {"a", "b"} <= names and (not shm or "c" in names)
    assert not (repo / "a").exists() and not (sandbox.tmpdir / "b").exists()


def test_writes_by_others_meanwhile_are_not_counted(
    make_sandbox: MakeSandbox, tmp_path: Path
) -> None:
    needs_disk(10)
    sandbox = make_sandbox(limits=BUDGET_50M)
    elsewhere = tmp_path / "someone-else.bin"  # same filesystem, outside the repo

    def write_elsewhere() -> None:
        time.sleep(0.3)
        subprocess.run(["fallocate", "-l", "200M", str(elsewhere)], check=True)

    writer = threading.Thread(target=write_elsewhere)
    writer.start()
    result = sandbox.run("sleep 1.5; echo ok", timeout=30)
    writer.join()
    elsewhere.unlink()
    assert result.ok and result.stdout == "ok\n" and result.blocked_by is None


def test_three_900M_files_under_the_default_budget(make_sandbox: MakeSandbox, repo: Path) -> None:
    needs_disk(10)
    sandbox = make_sandbox(limits=Limits(kill_grace=0.2))  # defaults: a 2 GiB budget
    try:
        result = sandbox.run(
            "fallocate -l 900M a; fallocate -l 900M b; fallocate -l 900M c; sleep 5; echo done",
            timeout=60,
        )
        left = sorted(p.name for p in repo.glob("[abc]"))
    finally:
        for name in "abc":
            (repo / name).unlink(missing_ok=True)
    assert result.blocked_by == "disk-limit" and result.killed_by == "disk-limit"
    assert "done" not in result.stdout and result.seconds < 5
    # the third is refused before it takes space (the red team's run left 2.7 GB)
    # (the fixture's hello.txt, written in the same clock tick as the start, may count too)
    assert set(result.written) - {"hello.txt"} == {"a", "b"}
    assert left == [] and {"a", "b", "c"} <= set(result.removed)


# -- I: blocked_by says when, and only when, the sandbox denied ---------------------------


@pytest.mark.parametrize("mode", ["bwrap", "unshare"])
@pytest.mark.parametrize("flags", ["", "-s"])
def test_curl_to_localhost_with_the_network_off(
    make_sandbox: MakeSandbox, mode: str, flags: str
) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    result = make_sandbox(mode).run(f"curl {flags} http://127.0.0.1:9/")
    assert result.exit_code == 7 and result.blocked_by == "network"


def test_curl_to_a_closed_port_with_the_network_on_is_not_blamed(
    make_sandbox: MakeSandbox,
) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the with-block ends
    result = make_sandbox(allow_net=True).run(f"curl -s http://127.0.0.1:{port}/")
    assert result.exit_code == 7 and result.blocked_by is None


def test_perl_rmtree_on_a_read_only_path_is_reported_though_it_exits_0(
    make_sandbox: MakeSandbox, git_repo: Path
) -> None:
    (git_repo / ".git" / "decoy-dir").mkdir()
    (git_repo / ".git" / "decoy-dir" / "f").write_text("x")
    sandbox = make_sandbox("bwrap")
    result = sandbox.run(["perl", "-MFile::Path=rmtree", "-e", "rmtree('.git/decoy-dir')"])
    assert result.exit_code == 0 and result.blocked_by == "read-only-path"
    assert (git_repo / ".git" / "decoy-dir" / "f").exists()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "line",
    [
        "false",
        "ls no-such-file",
        "cat /etc/no-such-file",
        "perl -e 'warn qq(just a warning\\n)'",
        "python3 -c 'import sys; sys.exit(3)'",
    ],
)
def test_ordinary_failures_are_never_blamed_on_the_sandbox(
    make_sandbox: MakeSandbox, mode: str, line: str
) -> None:
    assert make_sandbox(mode).run(line).blocked_by is None


# -- J: environment and policy ------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_lc_variables_pass_only_as_locales(
    make_sandbox: MakeSandbox, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("LC_X", "decoy")
    monkeypatch.setenv("LC_MESSAGES", "decoy; rm -rf /")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    result = make_sandbox(mode).run("env")
    assert "decoy" not in result.stdout and "LC_X" not in result.stdout
    assert "LC_ALL=C.UTF-8\n" in result.stdout


DESTRUCTIVE = [
    "echo ../decoy | xargs rm -rf",
    "find .. -name decoy | xargs rm -rf",
    "cat <<EOF | bash\nrm -rf ../decoy\nEOF",
    "bash <<< 'rm -rf ../decoy'",
    "$(printf rm) -rf ../decoy",
    "$'\\x72m' -rf ../decoy",
    "X=../decoy; rm -rf $X",
    "cd .. && rm -rf decoy",
    "cd ..; rm -rf decoy/precious.txt",
    "bash -c 'cd .. && rm -rf decoy'",
    "ln -s ../decoy d && rm -rf d/",
    "ln -s .. up; rm -rf up/decoy",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", DESTRUCTIVE)
def test_destructive_lines_are_refused_in_every_mode(
    make_sandbox: MakeSandbox, repo: Path, decoy: Path, mode: str, line: str
) -> None:
    result = make_sandbox(mode).run(line)
    assert result.blocked_by == "policy:rm-outside-repo" and result.exit_code is None
    assert (decoy / "precious.txt").read_text() == "keep me\n"
    assert not (repo / "d").exists() and not (repo / "up").exists()  # nothing ran


@pytest.mark.parametrize("mode", MODES)
def test_the_same_shapes_inside_the_repo_still_run(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    (repo / "sub" / "build").mkdir(parents=True)
    (repo / "junk").mkdir()
    line = "cd sub && rm -rf build && cd .. && echo junk | xargs rm -rf && echo ok"
    result = make_sandbox(mode).run(line)
    assert result.ok and result.stdout == "ok\n", result.stderr
    assert not (repo / "sub" / "build").exists() and not (repo / "junk").exists()
