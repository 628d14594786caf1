"""Specification of the git helpers on real repositories in temporary folders.

A :class:`GitRepo` opened on a subfolder works on the whole repository; file lists are
exact for awkward names (spaces, unicode, renames); ``.patchwright/`` never shows as the
user's work nor is committed; branch names are checked and made unique without always
switching; snapshots work before the first commit; diffs can be staged or against a base;
worktrees keep ``.patchwright/`` out through the shared ``info/exclude``.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from patchwright.workspace import GitError, GitRepo, slugify
from patchwright.workspace.exclude import ensure_patchwright_excluded, find_git_common_dir


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    ).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "config", "user.name", "Dev")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


# -- where the repository is ------------------------------------------------------------------


def test_a_repo_opened_on_a_subfolder_works_on_the_whole_tree(repo: Path) -> None:
    sub = GitRepo(repo / "src")
    assert sub.is_repo
    assert sub.toplevel == repo.resolve()
    assert sub.ls_files() == [".gitignore", "src/app.py"]
    (repo / "top.txt").write_text("x\n")
    assert sub.dirty_files() == ["top.txt"], "paths are relative to the top level"


def test_a_missing_folder_is_not_a_repository(tmp_path: Path) -> None:
    missing = GitRepo(tmp_path / "nope")
    assert not missing.is_repo
    with pytest.raises(GitError, match="not a git repository"):
        missing.require_repo()


# -- file lists ---------------------------------------------------------------------------------


def test_listing_has_tracked_and_new_files_but_not_ignored_ones(repo: Path) -> None:
    (repo / "new.py").write_text("n\n")
    (repo / "trace.log").write_text("ignored\n")
    assert GitRepo(repo).ls_files() == [".gitignore", "new.py", "src/app.py"]


def test_awkward_file_names_come_back_exactly(repo: Path) -> None:
    names = ["with space.py", "ünïcödé.py", "quote'd.py", "tab\there.py"]
    for name in names:
        (repo / name).write_text("x\n")
    g = GitRepo(repo)
    assert set(names) <= set(g.ls_files())
    assert set(names) <= set(g.dirty_files())


def test_a_staged_rename_reports_both_the_old_and_the_new_path(repo: Path) -> None:
    git(repo, "mv", "src/app.py", "src/main.py")
    assert GitRepo(repo).dirty_files() == ["src/app.py", "src/main.py"]


def test_patchwright_state_is_never_the_users_work_even_when_not_excluded(repo: Path) -> None:
    (repo / ".patchwright" / "undo").mkdir(parents=True)
    (repo / ".patchwright" / "undo" / "entry").write_text("state\n")
    g = GitRepo(repo)
    assert g.dirty_files() == []
    assert ".patchwright/undo/entry" not in g.diff()


# -- commits and branches -------------------------------------------------------------------------


def test_committing_everything_leaves_patchwright_state_out(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("print('bye')\n")
    (repo / ".patchwright").mkdir()
    (repo / ".patchwright" / "runs.json").write_text("{}\n")
    GitRepo(repo).commit("all changes")
    assert git(repo, "ls-files") == ".gitignore\nsrc/app.py"
    assert git(repo, "show", "HEAD:src/app.py") == "print('bye')"


def test_a_commit_needs_a_message(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("changed\n")
    with pytest.raises(GitError, match="needs a message"):
        GitRepo(repo).commit("   ", ["src/app.py"])
    assert git(repo, "rev-list", "--count", "HEAD") == "1"


def test_an_invalid_branch_name_is_refused_before_anything_happens(repo: Path) -> None:
    g = GitRepo(repo)
    for bad in ("has space", "double..dot", "ends.lock", "-leading"):
        with pytest.raises(GitError, match="not a valid branch name"):
            g.create_branch(bad)
    assert g.current_branch() == "main"


def test_a_branch_can_be_created_without_switching_to_it(repo: Path) -> None:
    g = GitRepo(repo)
    assert g.create_branch("patchwright/side", switch=False) == "patchwright/side"
    assert g.current_branch() == "main"
    assert g.branch_exists("patchwright/side")
    assert not g.branch_exists("patchwright/other")
    assert g.create_branch("patchwright/side", switch=False) == "patchwright/side-2"


def test_uncommitted_work_travels_to_the_new_branch(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("work in progress\n")
    g = GitRepo(repo)
    g.create_branch("patchwright/task")
    assert g.current_branch() == "patchwright/task"
    assert (repo / "src" / "app.py").read_text() == "work in progress\n"
    assert g.dirty_files() == ["src/app.py"]


def test_a_snapshot_before_the_first_commit_has_no_parent(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "draft.py").write_text("draft\n")
    sha = GitRepo(tmp_path).snapshot_dirty()
    assert git(tmp_path, "show", f"{sha}:draft.py") == "draft"
    assert git(tmp_path, "rev-list", "--parents", "-n", "1", sha) == sha
    assert git(tmp_path, "status", "--porcelain") == "?? draft.py"


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Fix: the parser (again)!", "fix-the-parser-again"),
        ("ÄÖÜ only", "only"),
        ("", "task"),
        ("a" * 39 + "-b", "a" * 39),  # cut at 40, the dangling dash dropped
    ],
)
def test_slugs_are_lowercase_dashed_and_bounded(text: str, slug: str) -> None:
    assert slugify(text) == slug
    assert len(slugify("word " * 50)) <= 40


# -- diffs -------------------------------------------------------------------------------------


def test_a_staged_diff_shows_the_index_and_leaves_out_new_unstaged_files(repo: Path) -> None:
    (repo / "src" / "app.py").write_text("print('staged')\n")
    git(repo, "add", "src/app.py")
    (repo / "src" / "app.py").write_text("print('working')\n")
    (repo / "untracked.py").write_text("u = 1\n")
    staged = GitRepo(repo).diff(staged=True)
    assert "+print('staged')" in staged
    assert "working" not in staged and "untracked.py" not in staged
    work = GitRepo(repo).diff(include_untracked=False)
    assert "+print('working')" in work and "untracked.py" not in work


def test_a_diff_against_a_base_commit_spans_several_commits(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    (repo / "src" / "app.py").write_text("print('one')\n")
    git(repo, "commit", "-qam", "one")
    (repo / "src" / "app.py").write_text("print('two')\n")
    text = GitRepo(repo).diff(base=base)
    assert "-print('hi')" in text and "+print('two')" in text
    assert "one" not in text


# -- exclusion -----------------------------------------------------------------------------------


def test_a_worktree_shares_the_main_repositorys_exclude_file(repo: Path, tmp_path: Path) -> None:
    tree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "wt", str(tree))
    common = find_git_common_dir(tree)
    assert common == (repo / ".git").resolve()
    assert ensure_patchwright_excluded(tree) is True
    assert ".patchwright/" in (repo / ".git" / "info" / "exclude").read_text().splitlines()
    (tree / ".patchwright").mkdir()
    (tree / ".patchwright" / "x").write_text("state\n")
    assert "patchwright" not in git(tree, "status", "--porcelain")


def test_an_exclude_line_the_user_wrote_already_is_respected(repo: Path) -> None:
    exclude = repo / ".git" / "info" / "exclude"
    exclude.write_text("/.patchwright")  # no trailing newline, another spelling
    assert ensure_patchwright_excluded(repo) is False
    assert exclude.read_text() == "/.patchwright"


def test_outside_a_repository_there_is_nothing_to_exclude(tmp_path: Path) -> None:
    assert find_git_common_dir(tmp_path) is None
    assert ensure_patchwright_excluded(tmp_path) is False
