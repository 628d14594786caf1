"""Git behaviour on real repositories in temporary folders."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from patchwright.workspace.errors import GitError
from patchwright.workspace.git import BRANCH_PREFIX, GitRepo, slugify


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True,
        stdin=subprocess.DEVNULL, timeout=60,
    ).stdout.strip()  # fmt: skip


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "dev@example.com")
    git(tmp_path, "config", "user.name", "Dev")
    (tmp_path / "app.py").write_text("print('hi')\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "init")
    return tmp_path


def test_detects_repo_head_and_branch(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    g = GitRepo(repo)
    assert g.is_repo
    assert g.head() == git(repo, "rev-parse", "HEAD")
    assert g.current_branch() == "main"
    assert not GitRepo(tmp_path_factory.mktemp("plain")).is_repo


def test_detached_head_is_reported_and_refused(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    g = GitRepo(repo)
    assert g.current_branch() is None
    with pytest.raises(GitError, match="detached"):
        g.require_branch()


def test_unborn_repository_has_no_head_but_a_branch(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "trunk")
    g = GitRepo(tmp_path)
    assert g.head() is None
    assert g.current_branch() == "trunk"


def test_dirty_files_lists_modified_staged_untracked_but_not_ignored(repo: Path) -> None:
    (repo / "app.py").write_text("changed\n")
    (repo / "new.py").write_text("x\n")
    (repo / "debug.log").write_text("ignored\n")
    (repo / "staged.py").write_text("s\n")
    git(repo, "add", "staged.py")
    g = GitRepo(repo)
    assert g.dirty_files() == ["app.py", "new.py", "staged.py"]
    assert g.dirty_files(["app.py", "other.py"]) == ["app.py"]


def test_snapshot_keeps_user_work_without_touching_tree_or_index(repo: Path) -> None:
    (repo / "app.py").write_text("user work\n")
    (repo / "draft.py").write_text("draft\n")
    status_before = git(repo, "status", "--porcelain")
    sha = GitRepo(repo).snapshot_dirty()
    assert git(repo, "status", "--porcelain") == status_before
    assert git(repo, "show", f"{sha}:app.py") == "user work"
    assert git(repo, "show", f"{sha}:draft.py") == "draft"
    assert sha in git(repo, "for-each-ref", "refs/patchwright/snapshots")


def test_a_task_branch_is_created_with_slug_and_made_unique(repo: Path) -> None:
    g = GitRepo(repo)
    assert (
        g.create_branch(BRANCH_PREFIX + slugify("Fix the failing test in parser!"))
        == "patchwright/fix-the-failing-test-in-parser"
    )
    assert g.current_branch() == "patchwright/fix-the-failing-test-in-parser"
    g.switch("main")
    assert (
        g.create_branch(BRANCH_PREFIX + slugify("fix the failing test in parser"))
        == "patchwright/fix-the-failing-test-in-parser-2"
    )
    assert slugify("  ***  ") == "task"


def test_commit_only_given_paths_leaves_other_changes_alone(repo: Path) -> None:
    (repo / "app.py").write_text("print('agent')\n")
    (repo / "new_mod.py").write_text("x = 1\n")
    (repo / "user.py").write_text("mine\n")
    git(repo, "add", "user.py")
    g = GitRepo(repo)
    sha = g.commit("feat: agent change", ["app.py", "new_mod.py"])
    assert sha == g.head()
    committed = git(repo, "show", "--name-only", "--format=%s", "HEAD").splitlines()
    assert committed[0] == "feat: agent change"
    assert sorted(filter(None, committed[1:])) == ["app.py", "new_mod.py"]
    assert git(repo, "status", "--porcelain") == "A  user.py"


def test_commit_records_deletions_and_refuses_empty_commits(repo: Path) -> None:
    (repo / "app.py").unlink()
    g = GitRepo(repo)
    g.commit("remove app", ["app.py"])
    assert "app.py" not in git(repo, "ls-files")
    with pytest.raises(GitError, match="nothing to commit"):
        g.commit("again", ["never-existed.py"])
    with pytest.raises(GitError):
        g.commit("no change", [".gitignore"])


def test_commit_without_identity_falls_back_to_patchwright(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "f.txt").write_text("x\n")
    GitRepo(repo).commit("first", ["f.txt"])
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "patchwright <patchwright@localhost>"


def test_diff_shows_modified_and_untracked_files(repo: Path) -> None:
    (repo / "app.py").write_text("print('bye')\n")
    (repo / "added.py").write_text("new = True\n")
    text = GitRepo(repo).diff()
    assert "-print('hi')" in text and "+print('bye')" in text
    assert "+new = True" in text and "added.py" in text
    assert "added.py" not in GitRepo(repo).diff(["app.py"])


def test_ensure_excluded_adds_patchwright_once(repo: Path) -> None:
    g = GitRepo(repo)
    g.ensure_excluded()
    g.ensure_excluded()
    lines = (repo / ".git/info/exclude").read_text().splitlines()
    assert lines.count(".patchwright/") == 1
    (repo / ".patchwright").mkdir()
    (repo / ".patchwright/x").write_text("state")
    assert g.dirty_files() == []


def test_errors_outside_a_repo_are_clear(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="git init"):
        GitRepo(tmp_path).head()
