"""Git is data, not code: a repository whose ``.git`` was written by someone else (a command
the model ran, a cloned project) cannot make patchwright's git calls run anything.

Every planted program deletes a decoy folder outside the repository and leaves a marker
naming itself; each test shows the plant is live with plain git first where that is cheap,
then that patchwright's calls leave the decoy alone and no marker behind."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from patchwright.workspace.errors import GitError
from patchwright.workspace.git import BRANCH_PREFIX, GitRepo, slugify
from patchwright.workspace.gitsafe import (
    ConfigEntry,
    neutralising_overrides,
    parse_config_list,
    read_config,
    run_git,
)

HOOKS = (
    "pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-index-change",
    "reference-transaction", "post-checkout", "pre-push", "pre-auto-gc", "post-rewrite",
)  # fmt: skip


class Trap:
    """A decoy folder outside the repository and a folder where planted programs sign in."""

    def __init__(self, base: Path) -> None:
        self.decoy = base / "decoy"
        self.ran = base / "ran"
        self.decoy.mkdir()
        (self.decoy / "precious.txt").write_text("keep me\n")
        self.ran.mkdir()

    def command(self, name: str) -> str:
        """A shell command that deletes the decoy and signs in as ``name``."""
        return f"rm -rf '{self.decoy}'; touch '{self.ran}/{name}'"

    def hook(self, folder: Path, name: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"#!/bin/sh\n{self.command(name)}\nexit 0\n")
        (folder / name).chmod(0o755)

    def fired(self) -> list[str]:
        return sorted(p.name for p in self.ran.iterdir())

    def assert_untouched(self) -> None:
        assert self.fired() == [], f"planted programs ran: {self.fired()}"
        assert (self.decoy / "precious.txt").read_text() == "keep me\n"


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Plain, unhardened git: how a planted repository is prepared (and attacked)."""
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True,
        stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, **(env or {})},
    ).stdout  # fmt: skip


@pytest.fixture()
def trap(tmp_path: Path) -> Trap:
    return Trap(tmp_path)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    (root / "app.py").write_text("print('hi')\n")
    (root / ".gitattributes").write_text("* filter=evil diff=evil merge=evil\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


def plant(repo: Path, trap: Trap) -> None:
    """What a compromised command could write into ``.git``: fsmonitor, every hook, an
    ``[include]`` of a config file outside the repository holding filter, diff and merge
    drivers, ssh, pager, editor, askpass, credential and signing programs, a hooks path
    and aliases shadowing built-ins."""
    git(repo, "config", "core.fsmonitor", trap.command("fsmonitor") + "; false")
    for name in HOOKS:
        trap.hook(repo / ".git" / "hooks", name)
    evil_hooks = repo.parent / "evil-hooks"
    for name in HOOKS:
        trap.hook(evil_hooks, "hooks-path-" + name)
        (evil_hooks / name).symlink_to(evil_hooks / ("hooks-path-" + name))
    included = repo.parent / "evil.cfg"
    values = {
        "filter.evil.clean": trap.command("clean") + "; cat",
        "filter.evil.smudge": trap.command("smudge") + "; cat",
        "filter.evil.process": trap.command("process"),
        "filter.evil.required": "true",
        "diff.evil.textconv": trap.command("textconv") + "; cat",
        "diff.evil.command": trap.command("diff-command"),
        "diff.external": trap.command("diff-external"),
        "merge.evil.driver": trap.command("merge-driver"),
        "core.sshCommand": trap.command("ssh"),
        "core.pager": trap.command("pager"),
        "pager.status": trap.command("pager-status"),
        "core.editor": trap.command("editor"),
        "core.askPass": trap.command("askpass"),
        "core.hooksPath": str(evil_hooks),
        "core.untrackedCache": "true",
        "credential.helper": "!" + trap.command("credential"),
        "gpg.program": trap.command("gpg"),
        "alias.status": "!" + trap.command("alias-status"),
        "alias.commit": "!" + trap.command("alias-commit"),
        "alias.diff": "!" + trap.command("alias-diff"),
    }
    for key, value in values.items():
        git(repo, "config", "--file", str(included), key, value)
    git(repo, "config", "include.path", str(included))


def test_the_plant_is_live_for_plain_git(repo: Path, trap: Trap) -> None:
    plant(repo, trap)
    (repo / "app.py").write_text("print('changed')\n")
    with contextlib.suppress(subprocess.CalledProcessError):
        git(repo, "status", "--porcelain")
    assert {"fsmonitor", "process"} & set(trap.fired())
    assert not trap.decoy.exists()


def test_every_gitrepo_operation_runs_nothing_planted(repo: Path, trap: Trap) -> None:
    plant(repo, trap)
    (repo / "app.py").write_text("print('changed')\n")
    (repo / "new.py").write_text("x = 1\n")
    g = GitRepo(repo)
    assert g.is_repo and g.current_branch() == "main"
    assert g.dirty_files() == ["app.py", "new.py"]
    assert "changed" in g.diff()
    assert g.ls_files() == [".gitattributes", "app.py", "new.py"]
    g.snapshot_dirty()
    g.create_branch(BRANCH_PREFIX + slugify("fix the greeting"))
    g.commit("fix: greet", ["app.py", "new.py"])
    g.switch("main")
    assert git(repo, "log", "-1", "--format=%s", "patchwright/fix-the-greeting") == "fix: greet\n"
    trap.assert_untouched()


def test_a_required_filter_the_repository_defines_cannot_block_or_run(
    repo: Path, trap: Trap
) -> None:
    plant(repo, trap)
    (repo / "app.py").write_text("print('new')\n")
    g = GitRepo(repo)
    g.commit("chore: new", ["app.py"])
    assert git(repo, "show", "HEAD:app.py") == "print('new')\n", "stored as is, unfiltered"
    trap.assert_untouched()


def test_hooks_path_pointing_into_the_repository_is_ignored(repo: Path, trap: Trap) -> None:
    trap.hook(repo / "tools" / "hooks", "pre-commit")
    trap.hook(repo / "tools" / "hooks", "post-index-change")
    git(repo, "config", "core.hooksPath", "tools/hooks")
    (repo / "app.py").write_text("print('new')\n")
    GitRepo(repo).commit("chore: new", ["app.py"])
    trap.assert_untouched()


def test_signing_program_the_repository_names_does_not_run(
    repo: Path, trap: Trap, tmp_path: Path
) -> None:
    trap.hook(tmp_path / "bin", "gpg")  # git runs gpg.program without a shell: a script
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(tmp_path / "bin" / "gpg"))
    (repo / "app.py").write_text("print('new')\n")
    with contextlib.suppress(GitError):  # the real gpg may fail to sign: that is fine
        GitRepo(repo).commit("chore: new", ["app.py"])
    trap.assert_untouched()


def test_credential_helpers_the_repository_names_do_not_run(repo: Path, trap: Trap) -> None:
    git(repo, "config", "credential.helper", "!" + trap.command("credential"))
    git(repo, "config", "credential.https://example.com.helper", "!" + trap.command("url"))
    ask = "protocol=https\nhost=example.com\n\n"
    hardened = run_git(repo, "credential", "fill", input=ask)
    assert hardened.returncode != 0 and "terminal prompts disabled" in hardened.stderr
    trap.assert_untouched()
    plain = subprocess.run(
        ["git", "credential", "fill"], cwd=repo, input=ask, capture_output=True, text=True,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0"}, timeout=60,
    )  # fmt: skip
    assert plain.returncode != 0 and trap.fired() == ["credential", "url"], "the plant is live"


def test_the_users_global_helpers_and_filters_still_work(
    repo: Path, trap: Trap, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    global_cfg = tmp_path / "global.gitconfig"
    git(repo, "config", "--file", str(global_cfg), "filter.evil.clean", "tr a-z A-Z")
    git(repo, "config", "--file", str(global_cfg), "filter.evil.smudge", "cat")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_cfg))
    git(repo, "config", "filter.evil.clean", trap.command("clean") + "; cat")
    (repo / "app.py").write_text("print('new')\n")
    GitRepo(repo).commit("chore: shout", ["app.py"])
    assert git(repo, "show", "HEAD:app.py") == "PRINT('NEW')\n", "the trusted clean filter ran"
    trap.assert_untouched()


def test_push_to_a_repository_on_this_machine_runs_no_hook_of_either_side(
    repo: Path, trap: Trap, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    for name in ("pre-receive", "update", "post-receive", "post-update", "reference-transaction"):
        trap.hook(remote / "hooks", name)
    trap.hook(repo / ".git" / "hooks", "pre-push")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "config", "remote.origin.receivepack", trap.command("receivepack") + "; exit 1")
    proc = run_git(repo, "push", "--set-upstream", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert git(remote, "rev-parse", "main") == git(repo, "rev-parse", "main")
    trap.assert_untouched()


def test_a_submodules_own_configuration_is_never_consulted(
    repo: Path, trap: Trap, tmp_path: Path
) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "a.txt").write_text("a\n")
    (sub / ".gitattributes").write_text("* filter=evil\n")
    git(sub, "add", "-A")
    git(sub, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "s")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "-q", "add", str(sub), "sub")
    git(repo, "commit", "-q", "-m", "add sub")
    git(repo / "sub", "config", "filter.evil.clean", trap.command("sub-clean") + "; cat")
    (repo / "sub" / "a.txt").write_text("b\n")
    assert GitRepo(repo).dirty_files() == []
    GitRepo(repo).diff()
    trap.assert_untouched()
    git(repo, "status", "--porcelain")
    assert trap.fired() == ["sub-clean"], "plain git runs the submodule's filter"


def test_core_worktree_pointing_elsewhere_is_refused(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(repo, "config", "core.worktree", str(elsewhere))
    g = GitRepo(repo)
    assert not g.is_repo
    with pytest.raises(GitError, match=r"core\.worktree"):
        g.require_repo()


def test_an_unreadable_configuration_is_no_repository_and_says_why(repo: Path) -> None:
    with (repo / ".git" / "config").open("a") as config:
        config.write("[core\n")
    g = GitRepo(repo)
    assert not g.is_repo
    with pytest.raises(GitError, match="cannot read the git configuration"):
        g.require_repo()


def test_run_hooks_runs_the_users_pre_commit_and_nothing_else(repo: Path, trap: Trap) -> None:
    hooks = repo / ".git" / "hooks"
    for name in HOOKS:
        trap.hook(hooks, name)
    (hooks / "pre-commit").write_text(f"#!/bin/sh\ntouch '{trap.ran}/pre-commit'\n")
    (repo / "app.py").write_text("print('new')\n")
    GitRepo(repo, run_hooks=True).commit("chore: new", ["app.py"])
    assert trap.fired() == ["pre-commit"]
    assert (trap.decoy / "precious.txt").exists()


def test_a_failing_pre_commit_hook_blocks_the_commit_only_when_hooks_run(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint failed' >&2\nexit 1\n")
    hook.chmod(0o755)
    (repo / "app.py").write_text("print('new')\n")
    with pytest.raises(GitError, match="lint failed"):
        GitRepo(repo, run_hooks=True).commit("chore: new", ["app.py"])
    GitRepo(repo).commit("chore: new", ["app.py"])
    assert git(repo, "log", "-1", "--format=%s") == "chore: new\n"


def test_run_hooks_finds_a_hooks_path_hook_that_sources_its_neighbours(
    repo: Path, trap: Trap
) -> None:
    husky = repo / ".husky"
    husky.mkdir()
    (husky / "h").write_text(f"touch '{trap.ran}/sourced-helper'\n")
    (husky / "pre-commit").write_text('#!/bin/sh\n. "$(dirname "$0")/h"\n')
    (husky / "pre-commit").chmod(0o755)
    trap.hook(husky, "post-commit")
    git(repo, "config", "core.hooksPath", ".husky")
    (repo / "app.py").write_text("print('new')\n")
    GitRepo(repo, run_hooks=True).commit("chore: new", ["app.py"])
    assert trap.fired() == ["sourced-helper"]


def test_config_listing_keeps_scope_origin_and_values_with_newlines(repo: Path) -> None:
    git(repo, "config", "filter.x.clean", "a\nb")
    entries = [e for e in read_config(repo) if e.key.startswith("filter.x")]
    assert entries == [ConfigEntry("local", "file:.git/config", "filter.x.clean", "a\nb")]
    assert parse_config_list("local\0file:x\0core.bare\0") == [
        ConfigEntry("local", "file:x", "core.bare", None)
    ]


def test_repository_values_are_replaced_by_the_users_or_by_harmless_ones() -> None:
    entries = [
        ConfigEntry("global", "file:~/.gitconfig", "core.sshcommand", "ssh -i key"),
        ConfigEntry("global", "file:~/.gitconfig", "credential.helper", "store"),
        ConfigEntry("local", "file:.git/config", "core.sshcommand", "evil"),
        ConfigEntry("local", "file:.git/config", "credential.helper", "!evil"),
        ConfigEntry("local", "file:.git/config", "filter.Lfs.process", "evil"),
        ConfigEntry("local", "file:.git/config", "filter.Lfs.required", "true"),
        ConfigEntry("local", "file:.git/config", "user.name", "Dev"),
    ]
    pairs, _ = neutralising_overrides(entries)
    assert pairs == [
        ("core.sshcommand", "ssh -i key"),
        ("credential.helper", ""),
        ("credential.helper", "store"),
        ("filter.Lfs.process", ""),
        ("filter.Lfs.required", "false"),
    ]
