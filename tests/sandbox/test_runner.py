"""``Sandbox.run``: results per the contract, policy first, private HOME/TMPDIR, caps."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from patchwright.sandbox import ExecResult, Limits, Sandbox, Verdict

MODES = ["bwrap", "unshare", "none"]
MakeSandbox = Callable[..., Sandbox]


@pytest.mark.parametrize("mode", MODES)
def test_runs_a_shell_line_and_reports_exit_code_and_streams(
    make_sandbox: MakeSandbox, mode: str
) -> None:
    result = make_sandbox(mode).run("cat hello.txt; echo oops >&2; exit 3")
    assert (result.exit_code, result.stdout, result.stderr) == (3, "hello\n", "oops\n")
    assert not result.timed_out and result.blocked_by is None and result.killed_by is None
    assert not result.truncated and 0 < result.seconds < 30


def test_runs_an_argv_without_a_shell(make_sandbox: MakeSandbox) -> None:
    result = make_sandbox().run(["echo", "$(not expanded)", "a b"])
    assert result.ok and result.stdout == "$(not expanded) a b\n"


@pytest.mark.parametrize("mode", MODES)
def test_feeds_stdin_and_honours_cwd_and_extra_env(
    make_sandbox: MakeSandbox, repo: Path, mode: str
) -> None:
    (repo / "sub").mkdir()
    result = make_sandbox(mode).run(
        'read line; echo "$line $GREETING $(basename "$PWD")"',
        stdin="hi\n",
        cwd=Path("sub"),
        extra_env={"GREETING": "there"},
    )
    assert result.stdout == "hi there sub\n"


@pytest.mark.parametrize("mode", MODES)
def test_a_python_run_leaves_no_bytecode_in_the_repository(
    make_sandbox: MakeSandbox, repo: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)  # as on most machines
    (repo / "pkg").mkdir()
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    result = make_sandbox(mode).run(["python3", "-c", "from pkg.calc import add; print(add(1, 2))"])
    assert result.stdout == "3\n", result.stderr
    assert sorted(p.name for p in (repo / "pkg").iterdir()) == ["__init__.py", "calc.py"]


def test_cwd_outside_the_repo_is_refused(make_sandbox: MakeSandbox) -> None:
    result = make_sandbox().run("pwd", cwd=Path(".."))
    assert result.exit_code is None and result.blocked_by == "cwd-outside-repo"


@pytest.mark.parametrize("mode", MODES)
def test_home_and_tmpdir_are_private_and_writable(
    make_sandbox: MakeSandbox, mode: str, fake_home: Path
) -> None:
    sandbox = make_sandbox(mode)
    result = sandbox.run('echo x > "$HOME/f" && echo y > "$TMPDIR/g" && echo "$HOME|$TMPDIR"')
    assert result.ok, result.stderr
    assert result.stdout.strip() == f"{sandbox.home}|{sandbox.tmpdir}"
    assert str(fake_home) not in result.stdout
    assert (sandbox.home / "f").read_text() == "x\n"


def test_private_dirs_are_removed_on_close(repo: Path) -> None:
    sandbox = Sandbox(repo)
    home = sandbox.home
    assert home.is_dir()
    sandbox.close()
    assert not home.exists()


def test_long_output_is_truncated_head_and_tail(make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox(limits=Limits(output_bytes=1000))
    result = sandbox.run("seq 1 100000")
    assert result.truncated and result.ok
    assert result.stdout.startswith("1\n2\n3\n") and result.stdout.endswith("99999\n100000\n")
    assert "bytes omitted" in result.stdout and len(result.stdout) < 1200


@pytest.mark.parametrize("mode", MODES)
def test_forbidden_commands_never_run(make_sandbox: MakeSandbox, repo: Path, mode: str) -> None:
    result = make_sandbox(mode).run("touch ran.txt; sudo true")
    assert not (repo / "ran.txt").exists()
    assert result.exit_code is None and result.blocked_by == "policy:privilege-escalation"
    assert "privilege-escalation" in result.stderr


def test_forbidden_argv_never_runs_even_with_an_approver(
    make_sandbox: MakeSandbox, repo: Path
) -> None:
    sandbox = make_sandbox(approve=lambda verdict: True)
    result = sandbox.run(["bash", "-c", "touch ran.txt; rm -rf /"])
    assert not (repo / "ran.txt").exists() and result.blocked_by == "policy:rm-root-or-home"


def test_ask_commands_go_through_the_approver(make_sandbox: MakeSandbox) -> None:
    asked: list[Verdict] = []

    def deny(verdict: Verdict) -> bool:
        asked.append(verdict)
        return False

    result = make_sandbox(approve=deny).run("pip install nothing-at-all")
    assert [v.rule for v in asked] == ["package-install"]
    assert result.blocked_by == "policy:package-install" and "not approved" in result.stderr
    allowed = make_sandbox(approve=lambda v: True).run("git push 2>/dev/null; echo ran")
    assert allowed.stdout == "ran\n"


def test_missing_program_is_reported_not_raised(make_sandbox: MakeSandbox) -> None:
    result = make_sandbox("none").run(["no-such-program-xyz"])
    assert result.exit_code == 127 and "no-such-program-xyz" in result.stderr


def test_bad_arguments_raise(repo: Path) -> None:
    with pytest.raises(NotADirectoryError):
        Sandbox(repo / "missing")
    with pytest.raises(ValueError, match="isolation"):
        Sandbox(repo, isolation="docker")  # type: ignore[arg-type]
    sandbox = Sandbox(repo)
    with pytest.raises(ValueError, match="empty"):
        sandbox.run("  ")
    with pytest.raises(ValueError, match="timeout"):
        sandbox.run("true", timeout=0)
    with pytest.raises(ValueError, match="processes"):
        Limits(processes=0)


def test_json_shape_is_exactly_the_contract() -> None:
    result = ExecResult(0, "o", "e", False, None, False, 1.23456, "timeout")
    data = json.loads(result.to_json())
    assert data == {
        "exit_code": 0,
        "stdout": "o",
        "stderr": "e",
        "timed_out": False,
        "blocked_by": None,
        "truncated": False,
        "seconds": 1.235,
    }


def test_isolation_says_what_is_in_force(make_sandbox: MakeSandbox) -> None:
    sandbox = make_sandbox()
    text = sandbox.isolation
    assert text.startswith(sandbox.layer.mode)
    if sandbox.layer.mode != "none":
        assert "network off" in text
    else:
        assert "network isolation is unavailable" in text
    open_net = make_sandbox(allow_net=True)
    assert not open_net.layer.network
    assert open_net.layer.mode == "none" or "network allowed" in open_net.isolation


def test_an_ordinary_failure_is_not_blamed_on_the_sandbox(make_sandbox: MakeSandbox) -> None:
    result = make_sandbox().run("python3 -c 'import sys; sys.exit(\"boom\")'")
    assert result.exit_code == 1 and result.blocked_by is None
