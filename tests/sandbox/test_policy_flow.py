"""The policy sees what a line really does: git configuration and ``.git`` writes, input
fed to ``xargs`` and shells, computed command names, ``cd`` chains and links it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from patchwright.sandbox import classify


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    root = home / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "g").symlink_to(".git")
    (home / "decoy").mkdir()
    return root


GIT_ASK = [
    ('git config core.fsmonitor "rm -rf ~; false"', "git-config"),
    ("git config --global core.hooksPath /tmp/h", "git-config"),
    ("git config --unset core.editor", "git-config"),
    ("git config set core.pager less", "git-config"),
    ("git -c core.fsmonitor=evil status", "git-config"),
    ("git -ccore.pager=evil log", "git-config"),
    ("git --config-env=core.pager=EVIL log", "git-config"),
    ("git -C src config user.name x", "git-config"),
    ("git submodule add https://x/y", "git-submodule"),
    ("git submodule update --init", "git-submodule"),
    ("git filter-branch --tree-filter x HEAD", "git-rewrite"),
    ("git filter-repo --path src", "git-rewrite"),
    ("git-filter-repo --path src", "git-rewrite"),
    ("echo x > .git/hooks/post-index-change", "write-git-dir"),
    ("echo x >> .git/config", "write-git-dir"),
    ("cp hook.sh .git/hooks/pre-commit", "write-git-dir"),
    ("cp hook.sh .git/hooks/", "write-git-dir"),
    ("install -m 755 hook.sh .git/hooks/post-checkout", "write-git-dir"),
    ("ln -sf ../../hook.sh .git/hooks/pre-commit", "write-git-dir"),
    ("mv evil .git/config", "write-git-dir"),
    ("mv .git/config elsewhere", "write-git-dir"),
    ("tee -a .git/config < evil", "write-git-dir"),
    ("touch .git/hooks/x", "write-git-dir"),
    ("sed -i 's/a/b/' .git/config", "write-git-dir"),
    ("sed -i.bak -e 's/a/b/' .git/config", "write-git-dir"),
    ("perl -pi -e 's/a/b/' .git/config", "write-git-dir"),
    ("chmod +x .git/hooks/pre-commit", "write-git-dir"),
    ("rm .git/hooks/pre-commit", "write-git-dir"),
    ("rm -rf .git", "write-git-dir"),
    ("cd .git && echo x > config", "write-git-dir"),
    ("cd .git/hooks; cp ../../evil post-merge", "write-git-dir"),
    ("echo x > g/config", "write-git-dir"),  # g links to .git
    ("dd if=evil of=.git/config", "write-git-dir"),
]

GIT_SAFE = [
    "git config --get user.name",
    "git config user.email",
    "git config --list --show-origin",
    "git config get core.editor",
    "git status && git diff --stat",
    "cat .git/config",
    "sed -n 1p .git/config",
    "sed -i 's/a/b/' src/a.py",
    "grep -r fsmonitor .git/config",
]

FORBIDDEN = [
    "echo ../decoy | xargs rm -rf",
    "printf '%s\\n' ../decoy | xargs -I{} rm -rf {}",
    "xargs rm -rf <<< ../decoy",
    "find .. -name decoy -print | xargs rm -rf",
    "cat <<EOF | bash\nrm -rf ../decoy\nEOF",
    "cat <<'EOF' | sh -s\nrm -rf ../decoy\nEOF",
    "bash <<EOF\nrm -rf ../decoy\nEOF",
    "bash <<< 'rm -rf ../decoy'",
    "echo 'rm -rf ../decoy' | bash",
    "bash <(echo 'rm -rf ../decoy')",
    "source <(echo 'rm -rf ../decoy')",
    "cat <<EOF > notes.txt\n$(rm -rf ../decoy)\nEOF",
    "$(printf rm) -rf ../decoy",
    "$(echo rm) -rf ../decoy",
    "`printf rm` -rf ../decoy",
    "$'\\x72m' -rf ../decoy",
    "$'\\162\\155' -rf ../decoy",
    "r$(echo m) -rf ../decoy",
    "X=rm; $X -rf ../decoy",
    "$CMD -rf ../decoy",
    "rm -rf $(echo ../decoy)",
    "rm -rf $(printf '%s' ..)/decoy",
    "X=../decoy; rm -rf $X",
    "export D=..; rm -rf $D/decoy",
    "cd .. && rm -rf decoy",
    "cd ..; rm -rf decoy",
    "cd src && cd ../.. && rm -rf decoy",
    "cd /tmp || rm -rf ../decoy",
    "cd src; cd ..; rm -rf decoy",  # if `cd src` fails, `cd ..` leaves the repo
    "eval 'cd ..'; rm -rf decoy",
    "bash -c 'cd .. && rm -rf decoy'",
    "pushd .. && rm -rf decoy",
    "ln -s ../decoy d && rm -rf d/",
    "ln -s ../decoy d; rm -rf d/*",
    "ln -s .. up && rm -rf up/decoy",
    "ln -sfn ~ h && rm -rf h/decoy",
    "ln -s ../decoy d && mv d e && rm -rf e/",
    "ln -s ../decoy d && find d/ -delete",
]

STILL_SAFE = [
    "cd src && rm -rf ../build",
    "cd src && rm -rf *",
    "cd src && cd .. && rm -rf build",
    "ln -s ../decoy d && rm -rf d",  # removes the link, not what it points to
    "ln -s src s && rm -rf s/old",
    "echo build | xargs rm -rf",
    "find . -name '*.pyc' | xargs rm -f",
    "X=build; rm -rf $X",
    "echo hi | bash -c 'cat'",
    "cat <<EOF | python3\nimport shutil; print(1)\nEOF",
    "x=$(git rev-parse HEAD); echo $x",
    "$PYTHON -m pytest -q",
    "printf 'rm -rf ../decoy\\n' > notes.txt",
    "echo 'rm -rf ../decoy' | tee notes.txt",
]


@pytest.mark.parametrize(("line", "rule"), GIT_ASK)
def test_git_configuration_and_git_dir_writes_need_approval(
    repo: Path, line: str, rule: str
) -> None:
    verdict = classify(line, repo)
    assert (verdict.level, verdict.rule) == ("ask", rule), verdict


@pytest.mark.parametrize("line", GIT_SAFE)
def test_reading_git_configuration_is_safe(repo: Path, line: str) -> None:
    assert classify(line, repo).level == "safe", classify(line, repo)


@pytest.mark.parametrize("line", FORBIDDEN)
def test_destructive_commands_outside_the_repo_are_found_wherever_they_hide(
    repo: Path, line: str
) -> None:
    verdict = classify(line, repo)
    assert (verdict.level, verdict.rule) == ("forbidden", "rm-outside-repo"), verdict


@pytest.mark.parametrize("line", STILL_SAFE)
def test_the_same_shapes_inside_the_repo_stay_safe(repo: Path, line: str) -> None:
    verdict = classify(line, repo)
    assert verdict.level == "safe", verdict


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("ls | xargs rm -rf", "rm-unresolved-variable"),  # input unknown
        ("cd $DIR && rm -rf *", "rm-unresolved-variable"),  # directory unknown
        ("X=src; for X in a b; do rm -rf $X; done", "rm-unresolved-variable"),  # rebound
        ("cd build; rm -rf *", "rm-repo-root"),  # if the cd fails, * is the whole repo
    ],
)
def test_what_cannot_be_known_is_asked(repo: Path, line: str, rule: str) -> None:
    verdict = classify(line, repo)
    assert (verdict.level, verdict.rule) == ("ask", rule), verdict
