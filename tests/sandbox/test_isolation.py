"""Choosing the isolation layer and building the bubblewrap command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.sandbox.bwrap import _home_binds, bwrap_argv
from patchwright.sandbox.isolation import Isolation, choose


def test_choose_never_claims_more_than_it_has() -> None:
    layer = choose("auto", allow_net=False)
    assert layer.mode in ("bwrap", "unshare", "none")
    assert layer.filesystem == (layer.mode == "bwrap")
    assert layer.network == (layer.mode != "none")
    assert choose("none", allow_net=False) == Isolation("none", network=False, filesystem=False)
    assert not choose("auto", allow_net=True).network


def test_descriptions_say_plainly_what_is_missing() -> None:
    none = Isolation("none", network=False, filesystem=False, notes=("bwrap not installed",))
    assert "network isolation is unavailable" in none.describe()
    assert "bwrap not installed" in none.describe()
    assert "NOT confined" in Isolation("unshare", network=True, filesystem=False).describe()


def test_toolchains_under_home_are_shown_but_secrets_never(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for sub in (".pyenv/shims", ".config/tool/bin", ".ssh", ".local/bin", "bin"):
        (home / sub).mkdir(parents=True)
    path_dirs = [str(home / ".pyenv/shims"), str(home / ".config/tool/bin"), str(home / "bin")]
    binds = _home_binds(home, tmp_path / "repo", [Path(p) for p in path_dirs])
    assert home / ".pyenv" in binds and home / "bin" in binds and home / ".local/bin" in binds
    assert home / ".pyenv/shims" not in binds  # already inside .pyenv
    assert not any(p.relative_to(home).parts[0] in (".config", ".ssh") for p in binds)


def test_bwrap_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    repo, private = tmp_path / "repo", tmp_path / "private"
    plan = bwrap_argv(
        ["make", "test"], root=repo, private=private, cwd=repo / "sub", allow_net=False
    )
    argv = plan.argv
    assert argv[:3] == ["bwrap", "--ro-bind", "/"] and argv[-3:] == ["--", "make", "test"]
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert ["--tmpfs", str(home)] == argv[argv.index(str(home)) - 1 :][:2]
    assert home in plan.hidden and Path("/tmp") in plan.hidden and Path("/run") in plan.hidden
    assert ["--bind", str(repo), str(repo)] == argv[argv.index(str(repo)) - 1 :][:3]
    assert argv[argv.index("--chdir") + 1] == str(repo / "sub")
    open_net = bwrap_argv(["x"], root=repo, private=private, cwd=repo, allow_net=True)
    assert "--unshare-net" not in open_net.argv


def _binds(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_git_dirs_and_state_are_bound_read_only_over_the_writable_repo(tmp_path: Path) -> None:
    repo, private = tmp_path / "repo", tmp_path / "private"
    main_git = tmp_path / "main" / ".git"
    (main_git / "worktrees" / "wt").mkdir(parents=True)
    (main_git / "worktrees" / "wt" / "commondir").write_text("../..\n")
    (repo / ".patchwright").mkdir(parents=True)
    (repo / ".git").write_text(f"gitdir: {main_git / 'worktrees' / 'wt'}\n")
    argv = bwrap_argv(["true"], root=repo, private=private, cwd=repo, allow_net=False).argv
    read_only = _binds(argv, "--ro-bind")
    for path in (repo / ".git", main_git / "worktrees" / "wt", main_git, repo / ".patchwright"):
        assert str(path) in read_only, path
        assert argv.index(str(path)) > argv.index(str(repo)), "bound after (over) the repo"


def test_scratch_areas_are_hidden_and_read_only(tmp_path: Path) -> None:
    repo, private = tmp_path / "repo", tmp_path / "private"
    (private / "shm").mkdir(parents=True)
    plan = bwrap_argv(["true"], root=repo, private=private, cwd=repo, allow_net=True)
    for area in ("/tmp", "/run"):
        assert area in _binds(plan.argv, "--tmpfs") and area in _binds(plan.argv, "--remount-ro")
    assert plan.is_hidden(Path("/tmp/someone-elses.sock")) and plan.is_hidden(Path("/run/x"))
    assert not plan.is_hidden(repo / "a.py") and not plan.is_hidden(private / "tmp" / "f")
    assert plan.argv[plan.argv.index("/dev/shm") - 1] == str(private / "shm")
